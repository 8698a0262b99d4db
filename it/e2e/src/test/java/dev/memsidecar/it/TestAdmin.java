package dev.memsidecar.it;

import static dev.memsidecar.it.Fixtures.PROVIDER;
import static dev.memsidecar.it.Fixtures.workspace;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memsidecar.proto.v1.Flags;
import dev.memsidecar.proto.v1.GetStatusRequest;
import dev.memsidecar.proto.v1.GetStatusResponse;
import dev.memsidecar.proto.v1.ProfileStatus;
import dev.memsidecar.proto.v1.Scope;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** AdminService.GetStatus, health and reflection. */
class TestAdmin {
  private static final Scope SCOPE = workspace("ws-admin");

  @TempDir static Path defaultWorkspace;
  @TempDir static Path configuredWorkspace;

  private static SidecarProcess defaults;
  private static SidecarProcess configured;

  @BeforeAll
  static void startSidecars() {
    defaults = SidecarProcess.start(defaultWorkspace);
    Fixtures.writeFlags(configuredWorkspace, false, true, true, false);
    Fixtures.writeProfile(configuredWorkspace, "team", "agent", true);
    Fixtures.writeProfile(configuredWorkspace, "scratch", "session", false);
    Fixtures.write(
        configuredWorkspace.resolve("config/memory/vault.yaml"),
        """
        apiVersion: memsidecar.dev/v1
        kind: Memory
        metadata:
          name: vault
        spec:
          provider: langmem-sqlite
          profile: workspace
          settings:
            jdbc.user: vault
            jdbc.password: s3cret-pw
        """);
    // Every log line is written, so that a secret in any of them would be seen.
    configured = SidecarProcess.start(configuredWorkspace, Map.of("MEMSIDECAR_LOG_LEVEL", "trace"));
  }

  @AfterAll
  static void stopSidecars() {
    if (defaults != null) {
      defaults.close();
    }
    if (configured != null) {
      configured.close();
    }
  }

  /**
   * The status's profiles without their vector backlog; with every sidecar on PostgreSQL ({@link
   * SharedDatabase}) also without the settings the shared store gives its profiles, which the tests
   * below do not expect.
   */
  private static List<ProfileStatus> profiles(GetStatusResponse status) {
    return status.getProfilesList().stream()
        .map(
            p -> {
              // What waits for vectors changes from moment to moment.
              ProfileStatus.Builder b =
                  p.toBuilder().clearVectorsPending().clearVectorsOldestWait();
              boolean shared = SharedDatabase.ENABLED && p.getProvider().equals(PROVIDER);
              return (shared ? b.clearSettings() : b).build();
            })
        .toList();
  }

  @Test
  void statusReportsVersionProvidersDefaultProfilesAndFlags() {
    GetStatusResponse status = defaults.admin().getStatus(GetStatusRequest.getDefaultInstance());
    assertFalse(status.getVersion().isBlank(), "version");
    assertEquals("rules", status.getExtractor(), status::toString);
    assertTrue(status.getProvidersList().contains(PROVIDER), status::toString);
    assertTrue(
        profiles(status).contains(profile("workspace", "workspace", true)), status::toString);
    assertTrue(profiles(status).contains(profile("user", "user", true)), status::toString);
    assertEquals(
        Flags.newBuilder()
            .setDeepagentsMemRead(true)
            .setDeepagentsMemWrite(true)
            .setLangmemRead(true)
            .setLangmemWrite(true)
            .build(),
        status.getFlags());
  }

  @Test
  void statusReportsConfiguredProfilesAndFlags() {
    GetStatusResponse status = configured.admin().getStatus(GetStatusRequest.getDefaultInstance());
    assertTrue(profiles(status).contains(profile("team", "agent", true)), status::toString);
    assertTrue(profiles(status).contains(profile("scratch", "session", false)), status::toString);
    assertEquals(
        Flags.newBuilder()
            .setDeepagentsMemRead(false)
            .setDeepagentsMemWrite(true)
            .setLangmemRead(true)
            .setLangmemWrite(false)
            .build(),
        status.getFlags());
  }

  @Test
  void statusShowsProfileSettingsWithSecretsMasked() {
    GetStatusResponse status = configured.admin().getStatus(GetStatusRequest.getDefaultInstance());
    ProfileStatus vault =
        status.getProfilesList().stream()
            .filter(p -> p.getId().equals("vault"))
            .findFirst()
            .orElseThrow(() -> new AssertionError(status.toString()));
    if (SharedDatabase.ENABLED) {
      // The shared store's settings replace the profile's credentials, the password masked.
      Map<String, String> settings = vault.getSettingsMap();
      assertEquals("***", settings.get("jdbc.password"), settings::toString);
      assertEquals("langmem_vault", settings.get("jdbc.schema"), settings::toString);
      assertTrue(settings.get("jdbc.url").startsWith("jdbc:postgresql:"), settings::toString);
    } else {
      assertEquals(Map.of("jdbc.user", "vault", "jdbc.password", "***"), vault.getSettingsMap());
    }
    assertFalse(status.toString().contains("s3cret-pw"), status::toString);
    assertFalse(configured.stderr().contains("s3cret-pw"), "logged a secret");
  }

  @Test
  void healthCheckIsServing() {
    assertEquals(
        HealthCheckResponse.ServingStatus.SERVING,
        defaults
            .health()
            .check(HealthCheckRequest.newBuilder().setService("").build())
            .getStatus());
  }

  @Test
  void reflectionListsTheMemoryService() throws Exception {
    List<String> names = defaults.reflectedServices();
    assertTrue(names.contains("memsidecar.v1.MemoryService"), names::toString);
  }

  private static ProfileStatus profile(String id, String scopeKind, boolean enabled) {
    return ProfileStatus.newBuilder()
        .setId(id)
        .setScopeKind(scopeKind)
        .setProvider(PROVIDER)
        .setEnabled(enabled)
        .build();
  }
}
