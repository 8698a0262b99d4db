package dev.memsidecar.shape;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideOutsideOfPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The dependency arrows {@code sidecar -> core -> api <- providers} (and {@code core, providers ->
 * jdbc}, the JDBC base; inside core {@code control -> run, toolrules}), checked on the main classes
 * of every module (tests excluded). The enforcer rules of the parent pom check the same arrows on
 * the Maven dependencies; these check what the code actually references. Each rule also fails when
 * no class of the package it guards was imported, so a moved package cannot pass unnoticed.
 */
class TestArchitecture {
  private static JavaClasses classes;

  @BeforeAll
  static void importClasses() {
    classes =
        new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.memsidecar");
  }

  @Test
  void apiUsesOnlyTheJdk() {
    classes()
        .that()
        .resideInAPackage("dev.memsidecar.api..")
        .should()
        .onlyDependOnClassesThat()
        .resideInAnyPackage("java..", "dev.memsidecar.api..")
        .check(classes);
  }

  @Test
  void apiKnowsNoOtherMemsidecarPackage() {
    noClasses()
        .that()
        .resideInAPackage("dev.memsidecar.api..")
        .should()
        .dependOnClassesThat(
            resideInAPackage("dev.memsidecar..")
                .and(resideOutsideOfPackage("dev.memsidecar.api..")))
        .check(classes);
  }

  @Test
  void coreKnowsNothingOfTheWire() {
    noClasses()
        .that()
        .resideInAPackage("dev.memsidecar.core..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "io.grpc..",
            "com.google.protobuf..",
            "dev.memsidecar.proto..",
            "dev.memsidecar.sidecar..")
        .check(classes);
  }

  @Test
  void providersAndToolkitUseNeitherInjectionNorWireNorEngine() {
    noClasses()
        .that()
        .resideInAnyPackage("dev.memsidecar.provider..", "dev.memsidecar.toolkit..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "com.google.inject..",
            "jakarta.inject..",
            "io.grpc..",
            "com.google.protobuf..",
            "dev.memsidecar.proto..",
            "dev.memsidecar.core..",
            "dev.memsidecar.sidecar..")
        .check(classes);
  }

  @Test
  void jdbcBaseUsesOnlyTheJdkH2HikariAndFlyway() {
    classes()
        .that()
        .resideInAPackage("dev.memsidecar.jdbc..")
        .should()
        .onlyDependOnClassesThat()
        .resideInAnyPackage(
            "java..",
            "javax.sql..",
            "org.h2..",
            "com.zaxxer.hikari..",
            "org.flywaydb..",
            "dev.memsidecar.jdbc..")
        .check(classes);
  }

  @Test
  void runsAndToolRulesDoNotSeeTheControlStoreThatKeepsThem() {
    // control/ implements RunStore and ToolRuleStore: the arrow points control -> run, toolrules.
    noClasses()
        .that()
        .resideInAnyPackage("dev.memsidecar.core.run..", "dev.memsidecar.core.toolrules..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("dev.memsidecar.core.control..")
        .check(classes);
  }

  @Test
  void toolkitUsesOnlyTheJdkAndTheApi() {
    classes()
        .that()
        .resideInAPackage("dev.memsidecar.toolkit..")
        .should()
        .onlyDependOnClassesThat()
        .resideInAnyPackage("java..", "dev.memsidecar.api..", "dev.memsidecar.toolkit..")
        .check(classes);
  }
}
