package dev.memsidecar.core;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.api.Capability;
import dev.memsidecar.api.Ids;
import dev.memsidecar.api.MemoryException;
import dev.memsidecar.api.MemoryStore;
import dev.memsidecar.api.Namespace;
import dev.memsidecar.core.ProfileCatalog.ActiveProfile;
import dev.memsidecar.core.config.Flags;
import java.util.ArrayList;
import java.util.List;

/**
 * The one entry every call goes through before it touches a store: it looks up the profile, makes
 * the namespace from the caller's scope ({@link NamespaceResolver}), decides whether the {@link
 * Access} is allowed — the four flags of memsidecar.yaml, the profile's enabled bit and the
 * request's {@link RequestOptions#readOnly() read-only} option — and hands back the store to use.
 * Record profiles (LangMem) answer to {@code LangMem.read/write}; memory files to {@code
 * deepagentsMem.read/write}. A read-only request may read anything the flags allow and write
 * nothing: Remember, ForgetMemory, WriteMemoryFile and EditMemoryFile are all PERMISSION_DENIED.
 *
 * <p>Checks run in a fixed order, so one bad request always gets the same status: malformed profile
 * name (INVALID_ARGUMENT: no profile can have it), unknown profile (NOT_FOUND), bad or missing
 * scope id (INVALID_ARGUMENT; every id the scope carries is checked, see {@link
 * NamespaceResolver#requireIds}), access (PERMISSION_DENIED), capability (UNIMPLEMENTED).
 * Thread-safe and stateless.
 */
public final class AccessPolicy {
  /** Profile used by record calls that name none. */
  public static final String DEFAULT_PROFILE = "workspace";

  private static final String READ_ONLY =
      "this request is read-only (metadata." + RequestOptions.MEMORY_WRITE + " = \"false\")";

  private final ProfileCatalog profiles;
  private final NamespaceResolver namespaces;
  private final Flags flags;

  /**
   * A call's way into one profile.
   *
   * @param profile the profile
   * @param namespace the namespace of the caller's scope in it
   * @param store its records store for record access, its memory file store for file access
   */
  public record Target(ActiveProfile profile, Namespace namespace, MemoryStore store) {
    public String profileId() {
      return profile.id();
    }

    /** The canonical name of the provider holding the profile's records. */
    public String provider() {
      return profile.provider();
    }
  }

  public AccessPolicy(ProfileCatalog profiles, NamespaceResolver namespaces, Flags flags) {
    this.profiles = requireNonNull(profiles, "profiles is null");
    this.namespaces = requireNonNull(namespaces, "namespaces is null");
    this.flags = requireNonNull(flags, "flags is null");
  }

  public Flags flags() {
    return flags;
  }

  /**
   * The way into one profile for {@code access}, or the reason there is none.
   *
   * @param profileId the profile; empty means {@value #DEFAULT_PROFILE}
   * @throws MemoryException INVALID_ARGUMENT for a malformed profile name, NOT_FOUND for an unknown
   *     profile, INVALID_ARGUMENT for a bad or missing scope id, PERMISSION_DENIED when a flag, the
   *     enabled bit or a read-only request forbids the access, UNIMPLEMENTED when the profile keeps
   *     no records or no memory file
   */
  public Target resolve(Scope scope, String profileId, Access access, RequestOptions options) {
    ActiveProfile profile = profile("profile", profileId.isEmpty() ? DEFAULT_PROFILE : profileId);
    Namespace ns = namespaces.resolve(scope, profile.spec());
    checkAllowed(profile, access, options);
    return new Target(profile, ns, storeFor(profile, access));
  }

  /**
   * Why a call that writes records to whichever profiles its candidates route to (EndRun) may write
   * none at all, in the words it gives in each decision instead of failing: {@code
   * memory.LangMem.write} is false, or the request is read-only. Null when records may be written.
   * A disabled profile is no reason here: such a call routes to enabled profiles only.
   */
  public String recordWriteRefusal(RequestOptions options) {
    if (!flagAllows(Access.WRITE)) {
      return "not written: memory.LangMem.write is false";
    }
    if (options.readOnly()) {
      return "not written: the request is read-only (metadata."
          + RequestOptions.MEMORY_WRITE
          + " = \"false\")";
    }
    return null;
  }

  /**
   * The way into what a workspace keeps apart from any profile (tool rules and tool stats): the
   * workspace id, checked. Such state answers to no memory flag, only to the request: a read-only
   * request may read it but not change it (PERMISSION_DENIED).
   *
   * @param access {@link Access#READ} or {@link Access#WRITE}
   * @return the workspace id
   */
  public String workspace(Scope scope, Access access, RequestOptions options) {
    String workspaceId = NamespaceResolver.requireIds(scope);
    if (access.writes() && options.readOnly()) {
      throw MemoryException.permissionDenied(READ_ONLY);
    }
    return workspaceId;
  }

  /**
   * The profiles a multi-profile read ({@link Access#RECALL} or {@link Access#FILES_READ}) draws
   * on. Named profiles must exist and resolve; without names, every profile whose scope id the
   * caller sent. Profiles that a flag or their enabled bit closes, and profiles without the
   * capability, contribute nothing rather than failing the call.
   *
   * @param profileIds the profiles the caller named, or empty for all
   */
  public List<Target> readable(
      Scope scope, List<String> profileIds, Access access, RequestOptions options) {
    if (access != Access.RECALL && access != Access.FILES_READ) {
      throw new IllegalArgumentException("readable() is for RECALL and FILES_READ: " + access);
    }
    NamespaceResolver.requireIds(scope);
    // Named profiles, or an id that was sent, must resolve: a malformed id fails closed.
    List<ActiveProfile> candidates =
        profileIds.isEmpty()
            ? profiles.all().stream().filter(p -> namespaces.hasIdFor(scope, p.spec())).toList()
            : profileIds.stream().distinct().map(id -> profile("profiles", id)).toList();
    List<Target> out = new ArrayList<>();
    for (ActiveProfile p : candidates) {
      Namespace ns = namespaces.resolve(scope, p.spec());
      if (denial(p, access, options) == null && hasStoreFor(p, access)) {
        out.add(new Target(p, ns, storeFor(p, access)));
      }
    }
    return List.copyOf(out);
  }

  /**
   * The profile {@code id}: INVALID_ARGUMENT naming {@code field} when it is not even a valid id
   * (profile names are ids, so a huge or malformed one is refused without a lookup), else as {@link
   * ProfileCatalog#get}.
   */
  private ActiveProfile profile(String field, String id) {
    Ids.require(field, id);
    return profiles.get(id);
  }

  private void checkAllowed(ActiveProfile profile, Access access, RequestOptions options) {
    String denial = denial(profile, access, options);
    if (denial != null) {
      throw MemoryException.permissionDenied(denial);
    }
  }

  /** Why {@code access} to {@code profile} is refused, or null when it is allowed. */
  private String denial(ActiveProfile profile, Access access, RequestOptions options) {
    if (!profile.spec().enabled()) {
      return "profile '" + profile.id() + "' is disabled (spec.enabled: false)";
    }
    if (!flagAllows(access)) {
      return switch (access) {
        case READ, RECALL -> "reading memory records is disabled (memory.LangMem.read: false)";
        case WRITE -> "writing memory records is disabled (memory.LangMem.write: false)";
        case FILES_READ -> "reading memory files is disabled (memory.deepagentsMem.read: false)";
        case FILES_WRITE -> "writing memory files is disabled (memory.deepagentsMem.write: false)";
      };
    }
    if (access.writes() && options.readOnly()) {
      return READ_ONLY;
    }
    return null;
  }

  /**
   * Whether BeginRun may recall session evidence: it answers to the flag recall of records answers
   * to ({@code memory.LangMem.read}), so turning memory off turns both off.
   */
  public boolean recordsReadable() {
    return flagAllows(Access.RECALL);
  }

  /** Whether the flag {@code access} answers to (see {@link Access}) is on. */
  private boolean flagAllows(Access access) {
    return switch (access) {
      case READ, RECALL -> flags.langMemRead();
      case WRITE -> flags.langMemWrite();
      case FILES_READ -> flags.deepagentsMemRead();
      case FILES_WRITE -> flags.deepagentsMemWrite();
    };
  }

  private static boolean hasStoreFor(ActiveProfile profile, Access access) {
    return access.files() ? profile.files() != null : profile.hasRecords();
  }

  private static MemoryStore storeFor(ActiveProfile profile, Access access) {
    if (!hasStoreFor(profile, access)) {
      throw MemoryException.unsupported(
          access.files()
              ? "profile '"
                  + profile.id()
                  + "' has no memory file: its provider '"
                  + profile.provider()
                  + "' keeps none and no files provider is configured"
                  + " (memory.deepagentsMem.provider)"
              : "profile '"
                  + profile.id()
                  + "' keeps no records: its provider '"
                  + profile.provider()
                  + "' does not declare "
                  + Capability.RECORDS);
    }
    return access.files() ? profile.files() : profile.store();
  }
}
