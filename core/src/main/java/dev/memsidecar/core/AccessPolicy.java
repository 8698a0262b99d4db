package dev.memsidecar.core;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.api.MemoryException;
import dev.memsidecar.core.config.Flags;
import dev.memsidecar.core.config.ProfileSpec;
import java.util.Map;

/**
 * The one place that answers "may this call read or write this profile?": the four flags of
 * memsidecar.yaml, the per-request {@code metadata["memoryWrite"]="false"}, and the profile's
 * enabled bit. Record profiles (LangMem) answer to {@code LangMem.read/write}; memory files answer
 * to {@code deepagentsMem.read/write}.
 */
public final class AccessPolicy {
  /** Request metadata key that, set to "false", makes a call read-only. */
  public static final String MEMORY_WRITE = "memoryWrite";

  private final Flags flags;

  public AccessPolicy(Flags flags) {
    this.flags = requireNonNull(flags, "flags is null");
  }

  public Flags flags() {
    return flags;
  }

  /** Whether recall (Search, BeginRun) may draw on {@code profile}'s records. */
  public boolean mayRecall(ProfileSpec profile) {
    return flags.langMemRead() && profile.enabled();
  }

  /** Throws PERMISSION_DENIED unless the records of {@code profile} may be read directly. */
  public void checkRead(ProfileSpec profile) {
    checkEnabled(profile);
    if (!flags.langMemRead()) {
      throw MemoryException.permissionDenied(
          "reading memory records is disabled (memory.LangMem.read: false)");
    }
  }

  /**
   * Throws PERMISSION_DENIED unless {@code profile}'s records may be written by a request carrying
   * {@code requestMetadata}.
   */
  public void checkWrite(ProfileSpec profile, Map<String, String> requestMetadata) {
    checkEnabled(profile);
    if (!flags.langMemWrite()) {
      throw MemoryException.permissionDenied(
          "writing memory records is disabled (memory.LangMem.write: false)");
    }
    if (isReadOnlyRequest(requestMetadata)) {
      throw MemoryException.permissionDenied(
          "this request is read-only (metadata.memoryWrite = \"false\")");
    }
  }

  /** Whether {@code profile}'s memory file is listed and readable (deepagentsMem.read). */
  public boolean mayReadFiles(ProfileSpec profile) {
    return flags.deepagentsMemRead() && profile.enabled();
  }

  /** Throws PERMISSION_DENIED unless {@code profile}'s memory file may be read. */
  public void checkReadFiles(ProfileSpec profile) {
    checkEnabled(profile);
    if (!flags.deepagentsMemRead()) {
      throw MemoryException.permissionDenied(
          "reading memory files is disabled (memory.deepagentsMem.read: false)");
    }
  }

  /** Throws PERMISSION_DENIED unless {@code profile}'s memory file may be written. */
  public void checkWriteFiles(ProfileSpec profile) {
    checkEnabled(profile);
    if (!flags.deepagentsMemWrite()) {
      throw MemoryException.permissionDenied(
          "writing memory files is disabled (memory.deepagentsMem.write: false)");
    }
  }

  /** Whether the request asked not to write anything ({@code memoryWrite=false}). */
  public static boolean isReadOnlyRequest(Map<String, String> requestMetadata) {
    return "false".equalsIgnoreCase(requestMetadata.getOrDefault(MEMORY_WRITE, "").trim());
  }

  private static void checkEnabled(ProfileSpec profile) {
    if (!profile.enabled()) {
      throw MemoryException.permissionDenied(
          "profile '" + profile.id() + "' is disabled (spec.enabled: false)");
    }
  }
}
