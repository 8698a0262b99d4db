package dev.memsidecar.shape;

import static org.junit.jupiter.api.Assertions.fail;

import com.google.googlejavaformat.java.Formatter;
import com.google.googlejavaformat.java.FormatterException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Every Java file of the repository is in google-java-format's output form (google style: 2-space
 * indent, 100 columns, ordered imports, no unused import), exactly what {@code .ci/format} writes.
 * Walks the file tree two levels above this module, skipping build output ({@code target/}, where
 * generated sources live), {@code node_modules/} and hidden folders.
 */
class TestSourceFormat {
  private static final Path ROOT =
      Path.of(System.getProperty("basedir", "")).toAbsolutePath().resolve("../..").normalize();

  @Test
  void everyJavaFileIsFormatted() throws IOException {
    Formatter formatter = new Formatter();
    List<String> differing = new ArrayList<>();
    for (Path file : javaFiles()) {
      String source = Files.readString(file, StandardCharsets.UTF_8);
      String relative = ROOT.relativize(file).toString();
      try {
        if (!formatter.formatSourceAndFixImports(source).equals(source)) {
          differing.add(relative);
        }
      } catch (FormatterException e) {
        differing.add(relative + " (does not parse: " + e.getMessage() + ")");
      }
    }
    if (!differing.isEmpty()) {
      fail(
          differing.size()
              + " Java files are not formatted; fix them with .ci/format:\n  "
              + String.join("\n  ", differing));
    }
  }

  private static List<Path> javaFiles() throws IOException {
    List<Path> files = new ArrayList<>();
    Files.walkFileTree(
        ROOT,
        new SimpleFileVisitor<>() {
          @Override
          public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
            String name = dir.getFileName().toString();
            boolean skip =
                !dir.equals(ROOT)
                    && (name.equals("target")
                        || name.equals("node_modules")
                        || name.startsWith("."));
            return skip ? FileVisitResult.SKIP_SUBTREE : FileVisitResult.CONTINUE;
          }

          @Override
          public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
            if (attrs.isRegularFile() && file.getFileName().toString().endsWith(".java")) {
              files.add(file);
            }
            return FileVisitResult.CONTINUE;
          }
        });
    files.sort(null);
    if (files.isEmpty()) {
      fail("no Java file under " + ROOT);
    }
    return files;
  }
}
