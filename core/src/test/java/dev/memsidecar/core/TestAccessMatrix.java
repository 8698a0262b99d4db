package dev.memsidecar.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.memsidecar.api.MemoryException;
import dev.memsidecar.api.MemoryStatus;
import dev.memsidecar.core.config.Flags;
import dev.memsidecar.core.config.ProfileSpec;
import dev.memsidecar.core.config.ScopeKind;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every RPC that reaches a profile, under every flag, on an enabled and a disabled profile, with
 * and without a read-only request: allowed calls work, refused ones are PERMISSION_DENIED (or, for
 * the calls that read many profiles, contribute nothing), and a refused or read-only call changes
 * nothing — checked afterwards through an engine with every flag on.
 */
class TestAccessMatrix {
  private static final Scope SCOPE = Scope.workspace("acme");
  private static final String PATH = "/memories/workspace.md";
  private static final String FILE = "# notes\nalpha\n";
  private static final Clock CLOCK = Clock.systemUTC();

  @TempDir Path data;

  /** The RPCs, the flag each answers to, and whether each writes. */
  enum Rpc {
    REMEMBER(Flag.LANGMEM_WRITE, true, false),
    FORGET(Flag.LANGMEM_WRITE, true, false),
    SEARCH(Flag.LANGMEM_READ, false, true),
    GET(Flag.LANGMEM_READ, false, false),
    LIST(Flag.LANGMEM_READ, false, false),
    LIST_FILES(Flag.DEEPAGENTS_READ, false, true),
    READ_FILE(Flag.DEEPAGENTS_READ, false, false),
    WRITE_FILE(Flag.DEEPAGENTS_WRITE, true, false),
    EDIT_FILE(Flag.DEEPAGENTS_WRITE, true, false);

    final Flag needs;
    final boolean writes;

    /** Reads many profiles: a refused profile contributes nothing instead of failing the call. */
    final boolean gathers;

    Rpc(Flag needs, boolean writes, boolean gathers) {
      this.needs = needs;
      this.writes = writes;
      this.gathers = gathers;
    }
  }

  enum Flag {
    LANGMEM_READ,
    LANGMEM_WRITE,
    DEEPAGENTS_READ,
    DEEPAGENTS_WRITE
  }

  /** Everything on, one flag off, or the profile disabled. */
  record Condition(Flag off, boolean profileEnabled) {
    Flags flags() {
      return new Flags(
          off != Flag.DEEPAGENTS_READ,
          off != Flag.DEEPAGENTS_WRITE,
          off != Flag.LANGMEM_READ,
          off != Flag.LANGMEM_WRITE);
    }

    @Override
    public String toString() {
      return !profileEnabled ? "profile disabled" : off == null ? "all on" : off + " off";
    }
  }

  static Stream<Arguments> cases() {
    List<Condition> conditions = new ArrayList<>();
    conditions.add(new Condition(null, true));
    for (Flag f : Flag.values()) {
      conditions.add(new Condition(f, true));
    }
    conditions.add(new Condition(null, false));
    List<Arguments> out = new ArrayList<>();
    for (Rpc rpc : Rpc.values()) {
      for (Condition c : conditions) {
        for (boolean readOnly : new boolean[] {false, true}) {
          out.add(Arguments.of(rpc, c, readOnly));
        }
      }
    }
    return out.stream();
  }

  @ParameterizedTest(name = "{0}, {1}, read-only {2}")
  @MethodSource("cases")
  void eachRpcAnswersToItsFlagTheEnabledBitAndReadOnly(Rpc rpc, Condition c, boolean readOnly) {
    String seedId = seed();
    boolean allowed = c.profileEnabled() && c.off() != rpc.needs && !(rpc.writes && readOnly);
    RequestOptions options =
        RequestOptions.fromMetadata(readOnly ? Map.of("memoryWrite", "false") : Map.of());
    ProfileSpec spec =
        c.profileEnabled()
            ? Engines.profile("workspace", ScopeKind.WORKSPACE)
            : Engines.disabled("workspace", ScopeKind.WORKSPACE);
    try (MemoryEngine engine = Engines.open(data, c.flags(), List.of(spec), CLOCK)) {
      if (allowed) {
        int found = call(engine, rpc, seedId, options);
        if (rpc.gathers) {
          assertEquals(1, found, rpc + " finds the seeded memory");
        }
      } else if (rpc.gathers) {
        assertEquals(0, call(engine, rpc, seedId, options), rpc + " contributes nothing");
      } else {
        MemoryException e =
            assertThrows(MemoryException.class, () -> call(engine, rpc, seedId, options));
        assertEquals(MemoryException.Code.PERMISSION_DENIED, e.code(), e.getMessage());
      }
    }
    assertState(rpc, allowed, seedId);
  }

  /** One record and one file, written with every flag on; returns the record's id. */
  private String seed() {
    try (MemoryEngine engine = Engines.open(data, Flags.ALL_ON, List.of(profile()), CLOCK)) {
      engine.files().write(SCOPE, PATH, FILE, "", RequestOptions.DEFAULT);
      return engine
          .remember(remember("the deploy runs on fridays"), RequestOptions.DEFAULT)
          .memory()
          .record()
          .id();
    }
  }

  /** Calls {@code rpc}; returns how many memories or files it returned (gathering calls). */
  private static int call(MemoryEngine engine, Rpc rpc, String seedId, RequestOptions options) {
    return switch (rpc) {
      case REMEMBER -> {
        engine.remember(remember("a second memory about the deploy"), options);
        yield 1;
      }
      case FORGET -> engine.forget(SCOPE, "", seedId, options) ? 1 : 0;
      case SEARCH ->
          engine
              .search(
                  new SearchInput(SCOPE, "deploy fridays", List.of(), 0, Set.of(), List.of(), 0),
                  options)
              .size();
      case GET -> engine.get(SCOPE, "", seedId, options) != null ? 1 : 0;
      case LIST -> engine.list(new ListInput(SCOPE, "", 0, "", true), options).memories().size();
      case LIST_FILES -> engine.files().list(SCOPE, options).size();
      case READ_FILE -> engine.files().read(SCOPE, PATH, options).file().content().length();
      case WRITE_FILE -> {
        engine.files().write(SCOPE, PATH, "# replaced\n", "", options);
        yield 1;
      }
      case EDIT_FILE -> {
        engine.files().edit(SCOPE, PATH, "alpha", "beta", "", options);
        yield 1;
      }
    };
  }

  /** What an all-on engine sees afterwards: changed only by an allowed write. */
  private void assertState(Rpc rpc, boolean allowed, String seedId) {
    try (MemoryEngine engine = Engines.open(data, Flags.ALL_ON, List.of(profile()), CLOCK)) {
      boolean changed = allowed && rpc.writes;
      int records =
          engine
              .list(new ListInput(SCOPE, "", 0, "", true), RequestOptions.DEFAULT)
              .memories()
              .size();
      assertEquals(changed && rpc == Rpc.REMEMBER ? 2 : 1, records, "records after " + rpc);
      MemoryStatus status = engine.get(SCOPE, "", seedId, RequestOptions.DEFAULT).record().status();
      assertEquals(
          changed && rpc == Rpc.FORGET ? MemoryStatus.FORGOTTEN : MemoryStatus.ACTIVE,
          status,
          "status after " + rpc);
      String file = engine.files().read(SCOPE, PATH, RequestOptions.DEFAULT).file().content();
      String expected =
          !changed
              ? FILE
              : switch (rpc) {
                case WRITE_FILE -> "# replaced\n";
                case EDIT_FILE -> "# notes\nbeta\n";
                default -> FILE;
              };
      assertEquals(expected, file, "file after " + rpc);
    }
  }

  private static ProfileSpec profile() {
    return Engines.profile("workspace", ScopeKind.WORKSPACE);
  }

  private static RememberInput remember(String content) {
    return new RememberInput(SCOPE, "", content, null, List.of(), Map.of(), null, null, "", "");
  }
}
