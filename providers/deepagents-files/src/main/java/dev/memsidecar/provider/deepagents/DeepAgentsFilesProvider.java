package dev.memsidecar.provider.deepagents;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.api.Capability;
import dev.memsidecar.api.MemoryProvider;
import dev.memsidecar.api.MemoryStore;
import dev.memsidecar.api.ProviderContext;
import java.util.Set;

/**
 * The {@code deepagents-files} provider: DeepAgents' native file memory. Each namespace's records
 * are the entries of one markdown file, the file the agent reads and edits as {@code
 * /memories/<profile>.md}, kept under the profile's data directory ({@link NamespacePaths}). The
 * records and the whole file ({@link Capability#FILES}) are two views of the same text: an agent
 * editing an entry edits that record. {@link MemoryMarkdown} documents the format.
 *
 * <p>It takes no settings; any key fails {@link #open} with INVALID_ARGUMENT naming it. Stateless
 * and thread-safe; see {@link DeepAgentsFilesStore} for what the stores promise.
 */
public final class DeepAgentsFilesProvider implements MemoryProvider {
  public static final String NAME = "deepagents-files";

  /** For {@link java.util.ServiceLoader}. */
  public DeepAgentsFilesProvider() {}

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public Set<Capability> capabilities() {
    return Set.of(Capability.RECORDS, Capability.FILES);
  }

  @Override
  public MemoryStore open(ProviderContext context) {
    requireNonNull(context, "context is null");
    context.requireOnly(Set.of());
    return DeepAgentsFilesStore.open(
        context.profileId(), context.dataDirectory(), context.embedder());
  }
}
