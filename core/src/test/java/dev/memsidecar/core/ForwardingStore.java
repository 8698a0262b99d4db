package dev.memsidecar.core;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.api.Capability;
import dev.memsidecar.api.ListQuery;
import dev.memsidecar.api.MemoryFile;
import dev.memsidecar.api.MemoryProvider;
import dev.memsidecar.api.MemoryRecord;
import dev.memsidecar.api.MemoryStore;
import dev.memsidecar.api.Namespace;
import dev.memsidecar.api.Page;
import dev.memsidecar.api.PendingVectors;
import dev.memsidecar.api.ProviderContext;
import dev.memsidecar.api.ScoredRecord;
import dev.memsidecar.api.SearchQuery;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.UnaryOperator;

/**
 * A store that passes every call to another; tests override the calls they change (a put that lags,
 * a file edited meanwhile).
 */
class ForwardingStore implements MemoryStore {
  final MemoryStore store;

  ForwardingStore(MemoryStore store) {
    this.store = requireNonNull(store, "store is null");
  }

  /** {@code inner}, under its name, with each store it opens wrapped by {@code wrap}. */
  static MemoryProvider wrapping(MemoryProvider inner, UnaryOperator<MemoryStore> wrap) {
    return new MemoryProvider() {
      @Override
      public String name() {
        return inner.name();
      }

      @Override
      public Set<Capability> capabilities() {
        return inner.capabilities();
      }

      @Override
      public MemoryStore open(ProviderContext context) {
        return wrap.apply(inner.open(context));
      }
    };
  }

  @Override
  public void put(MemoryRecord record) {
    store.put(record);
  }

  @Override
  public Optional<MemoryRecord> get(Namespace namespace, String id) {
    return store.get(namespace, id);
  }

  @Override
  public Page list(Namespace namespace, ListQuery query) {
    return store.list(namespace, query);
  }

  @Override
  public List<ScoredRecord> search(Namespace namespace, SearchQuery query) {
    return store.search(namespace, query);
  }

  @Override
  public void refresh(Namespace namespace) {
    store.refresh(namespace);
  }

  @Override
  public PendingVectors pendingVectors() {
    return store.pendingVectors();
  }

  @Override
  public boolean delete(Namespace namespace, String id) {
    return store.delete(namespace, id);
  }

  @Override
  public List<Namespace> namespaces() {
    return store.namespaces();
  }

  @Override
  public MemoryFile readFile(Namespace namespace) {
    return store.readFile(namespace);
  }

  @Override
  public MemoryFile writeFile(Namespace namespace, String content, String expectedEtag) {
    return store.writeFile(namespace, content, expectedEtag);
  }

  @Override
  public void close() {
    store.close();
  }
}
