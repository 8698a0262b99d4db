package dev.memsidecar.core;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.api.ListQuery;
import dev.memsidecar.api.MemoryFile;
import dev.memsidecar.api.MemoryRecord;
import dev.memsidecar.api.MemoryStore;
import dev.memsidecar.api.Namespace;
import dev.memsidecar.api.Page;
import dev.memsidecar.api.PendingVectors;
import dev.memsidecar.api.ScoredRecord;
import dev.memsidecar.api.SearchQuery;
import java.util.List;
import java.util.Optional;

/**
 * A store of a provider from a plugin, every call made with the plugin's class loader as the
 * thread's context class loader ({@link Plugins#withContextLoader}), so the plugin's libraries find
 * their own classes and resources whichever engine thread calls.
 */
final class PluginStore implements MemoryStore {
  private final MemoryStore store;
  private final ClassLoader loader;

  PluginStore(MemoryStore store, ClassLoader loader) {
    this.store = requireNonNull(store, "store is null");
    this.loader = requireNonNull(loader, "loader is null");
  }

  @Override
  public void put(MemoryRecord record) {
    Plugins.withContextLoader(
        loader,
        () -> {
          store.put(record);
          return null;
        });
  }

  @Override
  public Optional<MemoryRecord> get(Namespace namespace, String id) {
    return Plugins.withContextLoader(loader, () -> store.get(namespace, id));
  }

  @Override
  public Page list(Namespace namespace, ListQuery query) {
    return Plugins.withContextLoader(loader, () -> store.list(namespace, query));
  }

  @Override
  public List<ScoredRecord> search(Namespace namespace, SearchQuery query) {
    return Plugins.withContextLoader(loader, () -> store.search(namespace, query));
  }

  @Override
  public void refresh(Namespace namespace) {
    Plugins.withContextLoader(
        loader,
        () -> {
          store.refresh(namespace);
          return null;
        });
  }

  @Override
  public PendingVectors pendingVectors() {
    return Plugins.withContextLoader(loader, store::pendingVectors);
  }

  @Override
  public boolean delete(Namespace namespace, String id) {
    return Plugins.withContextLoader(loader, () -> store.delete(namespace, id));
  }

  @Override
  public List<Namespace> namespaces() {
    return Plugins.withContextLoader(loader, store::namespaces);
  }

  @Override
  public MemoryFile readFile(Namespace namespace) {
    return Plugins.withContextLoader(loader, () -> store.readFile(namespace));
  }

  @Override
  public MemoryFile writeFile(Namespace namespace, String content, String expectedEtag) {
    return Plugins.withContextLoader(
        loader, () -> store.writeFile(namespace, content, expectedEtag));
  }

  @Override
  public void close() {
    Plugins.withContextLoader(
        loader,
        () -> {
          store.close();
          return null;
        });
  }

  @Override
  public String toString() {
    return store.toString();
  }
}
