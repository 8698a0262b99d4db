package dev.memsidecar.shape;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideOutsideOfPackage;
import static com.tngtech.archunit.core.domain.properties.HasName.Predicates.nameMatching;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import io.grpc.BindableService;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The dependency arrows {@code sidecar -> core -> api <- providers} (and {@code core, providers ->
 * language, jdbc}, the libraries of {@code providers/lib}; inside core {@code control -> run,
 * toolrules, sessions, learning, skills, maintenance}), checked on the main classes of every module
 * (tests excluded). The enforcer rules of the parent pom check the same arrows on the Maven
 * dependencies; these check what the code actually references. Each rule also fails when no class
 * of the package it guards was imported, so a moved package cannot pass unnoticed.
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
        .resideInAnyPackage(
            "dev.memsidecar.provider..", "dev.memsidecar.toolkit..", "dev.memsidecar.language..")
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

  /**
   * Guice's module builds the engine, so nothing it builds may call back into it: the engine is
   * made by {@code new CoreModule(config, loader).engine()} in the process that wires it (sidecar),
   * never by core itself.
   */
  @Test
  void onlyTheProcessWiresTheEngine() {
    noClasses()
        .that()
        .doNotHaveFullyQualifiedName("dev.memsidecar.core.CoreModule")
        .and()
        .resideOutsideOfPackage("dev.memsidecar.sidecar..")
        .should()
        .dependOnClassesThat()
        .haveFullyQualifiedName("dev.memsidecar.core.CoreModule")
        .check(classes);
  }

  @Test
  void theEngineDoesNotKnowItsModule() {
    noClasses()
        .that()
        .haveFullyQualifiedName("dev.memsidecar.core.MemoryEngine")
        .should()
        .dependOnClassesThat()
        .haveFullyQualifiedName("dev.memsidecar.core.CoreModule")
        .check(classes);
  }

  @Test
  void toolkitUsesOnlyTheJdkTheApiAndTheLanguageModule() {
    classes()
        .that()
        .resideInAPackage("dev.memsidecar.toolkit..")
        .should()
        .onlyDependOnClassesThat()
        .resideInAnyPackage(
            "java..",
            "dev.memsidecar.api..",
            "dev.memsidecar.toolkit..",
            "dev.memsidecar.language..")
        .check(classes);
  }

  @Test
  void languageModuleUsesOnlyTheJdk() {
    classes()
        .that()
        .resideInAPackage("dev.memsidecar.language..")
        .should()
        .onlyDependOnClassesThat()
        .resideInAnyPackage("java..", "dev.memsidecar.language..")
        .check(classes);
  }

  /**
   * The arrows inside {@code sidecar/}, one way: {@code Main} (the command line) wires the bench,
   * the client commands, the configuration and the server; the client commands ({@code cli}: gRPC
   * clients, and {@code mcp}, which may run a server in process) use the configuration and the
   * server, never its services; the server builds the gRPC services; the services translate through
   * the mapping layer. Nothing refers back up: the mapping calls no service, the services know no
   * server, and the bench (a client of the sidecar over gRPC) knows neither {@code Main} nor the
   * server nor its services.
   */
  @Test
  void sidecarArrowsPointOneWay() {
    String top = "dev\\.memsidecar\\.sidecar\\.";
    String nested = "(\\$.*)?";
    DescribedPredicate<JavaClass> entry = nameMatching(top + "Main" + nested).forSubtype();
    DescribedPredicate<JavaClass> services =
        nameMatching(top + "\\w+GrpcService" + nested).forSubtype();
    DescribedPredicate<JavaClass> mapping =
        nameMatching(
                top
                    + "(ProtoMapping|SessionMapping|LearningMapping|TransferMapping|StatusMapping"
                    + "|RequestParsing)"
                    + nested)
            .forSubtype();
    DescribedPredicate<JavaClass> server =
        resideInAPackage("dev.memsidecar.sidecar")
            .and(not(entry))
            .and(not(services))
            .and(not(mapping))
            .as("the server (SidecarServer, call admission, auth, sockets, heap tuning)");
    layeredArchitecture()
        .consideringOnlyDependenciesInLayers()
        .layer("Main")
        .definedBy(entry)
        .layer("Bench")
        .definedBy("dev.memsidecar.sidecar.bench..")
        .layer("Cli")
        .definedBy("dev.memsidecar.sidecar.cli..")
        .layer("Config")
        .definedBy("dev.memsidecar.sidecar.config..")
        .layer("Server")
        .definedBy(server)
        .layer("Services")
        .definedBy(services)
        .layer("Mapping")
        .definedBy(mapping)
        .whereLayer("Main")
        .mayNotBeAccessedByAnyLayer()
        .whereLayer("Bench")
        .mayOnlyBeAccessedByLayers("Main")
        .whereLayer("Cli")
        .mayOnlyBeAccessedByLayers("Main")
        .whereLayer("Config")
        .mayOnlyBeAccessedByLayers("Main", "Cli")
        .whereLayer("Server")
        .mayOnlyBeAccessedByLayers("Main", "Cli")
        .whereLayer("Services")
        .mayOnlyBeAccessedByLayers("Server")
        .whereLayer("Mapping")
        .mayOnlyBeAccessedByLayers("Server", "Services")
        .check(classes);
  }

  /** The mapping layer translates; it never calls a gRPC service (ProtoMapping once did). */
  @Test
  void sidecarMappingCallsNoService() {
    noClasses()
        .that()
        .resideInAPackage("dev.memsidecar.sidecar..")
        .and()
        .haveSimpleNameEndingWith("Mapping")
        .should()
        .dependOnClassesThat()
        .areAssignableTo(BindableService.class)
        .check(classes);
  }

  /**
   * The bench starts the sidecar as a child process and talks gRPC to it: it refers to no class of
   * the sidecar's own packages (it once referred to {@code Main}, which imports the bench).
   */
  @Test
  void benchRefersToNoClassOfTheSidecarProcess() {
    noClasses()
        .that()
        .resideInAPackage("dev.memsidecar.sidecar.bench..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("dev.memsidecar.sidecar", "dev.memsidecar.sidecar.config..")
        .check(classes);
  }

  @Test
  void jdbcBaseUsesOnlyTheJdkH2PostgresqlHikariAndFlyway() {
    classes()
        .that()
        .resideInAPackage("dev.memsidecar.jdbc..")
        .should()
        .onlyDependOnClassesThat()
        .resideInAnyPackage(
            "java..",
            "javax.sql..",
            "org.h2..",
            "org.postgresql..",
            "com.zaxxer.hikari..",
            "org.flywaydb..",
            "dev.memsidecar.jdbc..")
        .check(classes);
  }

  @Test
  void runsAndToolRulesDoNotSeeTheControlStoreThatKeepsThem() {
    // control/ implements RunStore, ToolRuleStore, SessionStore, LearningStore, SkillStore and
    // MaintenanceStore: the arrow points control -> run, toolrules, sessions, learning, skills,
    // maintenance (and curated never needs it).
    noClasses()
        .that()
        .resideInAnyPackage(
            "dev.memsidecar.core.run..",
            "dev.memsidecar.core.toolrules..",
            "dev.memsidecar.core.sessions..",
            "dev.memsidecar.core.learning..",
            "dev.memsidecar.core.skills..",
            "dev.memsidecar.core.curated..",
            "dev.memsidecar.core.maintenance..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("dev.memsidecar.core.control..")
        .check(classes);
  }

  /**
   * The packages below core (config, control, events, run, toolrules) depend on each other one way
   * only, whatever new package comes: a cycle among them fails here.
   */
  @Test
  void corePackagesFormNoCycle() {
    slices().matching("dev.memsidecar.core.(*)..").should().beFreeOfCycles().check(classes);
  }
}
