package dev.memsidecar.provider.deepagents;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.api.Digests;
import dev.memsidecar.api.MemoryException;
import dev.memsidecar.api.Namespace;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Where the memory file of a namespace lives: {@code
 * <dataDirectory>/<c1>/<c2>/.../<cn>/<profile>.md} for a namespace {@code c1:c2:...:cn}, e.g.
 * {@code acme:user:alice:user} of profile {@code workspace} at {@code
 * acme/user/alice/user/workspace.md}.
 *
 * <p>Each component (and the profile id) is encoded so that it is one safe file name and two
 * different namespaces never share a file, even on a case-insensitive file system:
 *
 * <ul>
 *   <li>{@code a-z 0-9 _ -} and {@code .} stay as they are; every other character (upper-case
 *       letters, {@code /}, ...) becomes {@code %XX} per UTF-8 byte, upper-case hex;
 *   <li>a leading {@code .} becomes {@code %2E}, so no component is {@code .}, {@code ..} or a
 *       hidden name (temporary files and the lock file start with a dot); the {@code .} of a
 *       trailing {@code .md} becomes {@code %2E}, so a directory never has a memory file's name;
 *   <li>an empty component is {@code %};
 *   <li>an encoded component longer than {@value #MAX_NAME} characters is cut to its first 80 and
 *       {@code ~} plus 16 hex digits of the SHA-256 of the raw component.
 * </ul>
 *
 * Whatever the encoding gives, {@link #fileOf} also checks that the normalized path lies inside the
 * data directory. Stateless and thread-safe.
 */
final class NamespacePaths {
  static final int MAX_NAME = 120;
  static final String EXTENSION = ".md";

  private final Path root;
  private final String fileName;

  /**
   * @param root the data directory, absolute and normalized
   * @param profileId names the file of each namespace
   */
  NamespacePaths(Path root, String profileId) {
    this.root = requireNonNull(root, "root is null").toAbsolutePath().normalize();
    this.fileName = encode(requireNonNull(profileId, "profileId is null")) + EXTENSION;
  }

  Path root() {
    return root;
  }

  /** The memory file of {@code namespace}. */
  Path fileOf(Namespace namespace) {
    String[] components = namespace.value().split(":", -1);
    Path p = root;
    for (String c : components) {
      p = p.resolve(encode(c));
    }
    p = p.resolve(fileName).normalize();
    if (!p.startsWith(root) || p.getNameCount() != root.getNameCount() + components.length + 1) {
      // Unreachable with the encoding above; a guard against a future change to it.
      throw MemoryException.invalidArgument(
          "namespace", "namespace '" + namespace + "' maps outside the data directory");
    }
    return p;
  }

  /**
   * The namespace whose memory file {@code file} is, or empty when {@code file} is no memory file
   * of this profile under the root, or one of its components was cut to a digest (a component
   * longer than {@value #MAX_NAME} encoded characters), which cannot be read back.
   */
  Optional<Namespace> namespaceOf(Path file) {
    Path p = file.toAbsolutePath().normalize();
    if (!p.startsWith(root) || !p.getFileName().toString().equals(fileName)) {
      return Optional.empty();
    }
    Path relative = root.relativize(p.getParent());
    if (relative.toString().isEmpty()) {
      return Optional.empty();
    }
    List<String> components = new ArrayList<>();
    for (Path part : relative) {
      String raw = decode(part.toString());
      if (raw == null) {
        return Optional.empty();
      }
      components.add(raw);
    }
    try {
      Namespace ns = Namespace.of(String.join(":", components));
      return fileOf(ns).equals(p) ? Optional.of(ns) : Optional.empty();
    } catch (MemoryException notANamespace) {
      return Optional.empty();
    }
  }

  /** {@code encoded} read back as {@link #encode} wrote it, or null when it cannot be. */
  static String decode(String encoded) {
    if (encoded.equals("%")) {
      return "";
    }
    if (encoded.indexOf('~') >= 0) {
      return null;
    }
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(encoded.length());
    for (int i = 0; i < encoded.length(); i++) {
      char c = encoded.charAt(i);
      if (c == '%') {
        if (i + 2 >= encoded.length()) {
          return null;
        }
        int hi = Character.digit(encoded.charAt(i + 1), 16);
        int lo = Character.digit(encoded.charAt(i + 2), 16);
        if (hi < 0 || lo < 0) {
          return null;
        }
        bytes.write(hi * 16 + lo);
        i += 2;
      } else if (c < 0x80) {
        bytes.write(c);
      } else {
        return null;
      }
    }
    return new String(bytes.toByteArray(), StandardCharsets.UTF_8);
  }

  /** One path component for {@code raw}, as the class Javadoc says. */
  static String encode(String raw) {
    if (raw.isEmpty()) {
      return "%";
    }
    StringBuilder out = new StringBuilder(raw.length() + 8);
    int trailingMd =
        raw.length() > EXTENSION.length() && raw.endsWith(EXTENSION)
            ? raw.length() - EXTENSION.length()
            : raw.equals(EXTENSION) ? 0 : -1;
    for (int i = 0; i < raw.length(); ) {
      int cp = raw.codePointAt(i);
      boolean plain =
          (cp >= 'a' && cp <= 'z')
              || (cp >= '0' && cp <= '9')
              || cp == '_'
              || cp == '-'
              || (cp == '.' && i != 0 && i != trailingMd);
      if (plain) {
        out.append((char) cp);
      } else {
        for (byte b : new String(Character.toChars(cp)).getBytes(StandardCharsets.UTF_8)) {
          out.append('%').append(String.format(Locale.ROOT, "%02X", b & 0xff));
        }
      }
      i += Character.charCount(cp);
    }
    if (out.length() <= MAX_NAME) {
      return out.toString();
    }
    return out.substring(0, 80) + "~" + Digests.sha256Hex(raw, 16);
  }
}
