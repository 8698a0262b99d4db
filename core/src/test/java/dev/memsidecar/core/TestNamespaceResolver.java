package dev.memsidecar.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memsidecar.api.MemoryException;
import dev.memsidecar.core.config.ProfileSpec;
import dev.memsidecar.core.config.ScopeKind;
import org.junit.jupiter.api.Test;

class TestNamespaceResolver {
  private final NamespaceResolver resolver = new NamespaceResolver();
  private final Scope full = new Scope("easynet", "e2e-user", "planner", "s-1");

  @Test
  void formsEveryScopeKindAsTheArchitectureSays() {
    assertEquals(
        "easynet:workspace:workspace",
        resolver.resolve(full, ProfileSpec.of("workspace", ScopeKind.WORKSPACE)).value());
    assertEquals(
        "easynet:user:e2e-user:user",
        resolver.resolve(full, ProfileSpec.of("user", ScopeKind.USER)).value());
    assertEquals(
        "easynet:agent:planner:notes",
        resolver.resolve(full, ProfileSpec.of("notes", ScopeKind.AGENT)).value());
    assertEquals(
        "easynet:session:s-1:scratch",
        resolver.resolve(full, ProfileSpec.of("scratch", ScopeKind.SESSION)).value());
  }

  @Test
  void missingOrBadIdsFailClosedNamingTheField() {
    ProfileSpec user = ProfileSpec.of("user", ScopeKind.USER);
    MemoryException e =
        assertThrows(MemoryException.class, () -> resolver.resolve(Scope.workspace("w"), user));
    assertEquals("scope.user_id", e.field());
    e = assertThrows(MemoryException.class, () -> resolver.resolve(Scope.user("w", "a:b"), user));
    assertEquals("scope.user_id", e.field());
    e =
        assertThrows(
            MemoryException.class,
            () -> resolver.resolve(Scope.workspace(""), ProfileSpec.of("w", ScopeKind.WORKSPACE)));
    assertEquals("scope.workspace_id", e.field());
    assertFalse(resolver.hasIdFor(Scope.workspace("w"), user));
    assertTrue(resolver.hasIdFor(Scope.user("w", "al ice"), user));
  }

  @Test
  void everyIdTheScopeCarriesIsCheckedAlsoWhenTheProfileDoesNotUseIt() {
    ProfileSpec workspace = ProfileSpec.of("w", ScopeKind.WORKSPACE);
    String huge = "x".repeat(1024 * 1024);
    MemoryException e =
        assertThrows(
            MemoryException.class, () -> resolver.resolve(new Scope("w", "", huge, ""), workspace));
    assertEquals("scope.agent_id", e.field());
    assertTrue(e.getMessage().length() < 300, "the id is quoted cut: " + e.getMessage().length());
    e =
        assertThrows(
            MemoryException.class,
            () -> NamespaceResolver.requireIds(new Scope("w", "al ice", "", "")));
    assertEquals("scope.user_id", e.field());
    e =
        assertThrows(
            MemoryException.class,
            () -> NamespaceResolver.requireIds(new Scope("w", "", "", "..")));
    assertEquals("scope.session_id", e.field());
    assertEquals("w", NamespaceResolver.requireIds(Scope.workspace("w")));
    assertEquals("easynet", NamespaceResolver.requireIds(full));
  }
}
