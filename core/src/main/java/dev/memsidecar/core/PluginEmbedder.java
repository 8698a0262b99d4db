package dev.memsidecar.core;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.api.Embedder;
import java.util.List;

/** An embedder from a plugin, called with the plugin's class loader as context class loader. */
final class PluginEmbedder implements Embedder {
  private final Embedder embedder;
  private final ClassLoader loader;

  PluginEmbedder(Embedder embedder, ClassLoader loader) {
    this.embedder = requireNonNull(embedder, "embedder is null");
    this.loader = requireNonNull(loader, "loader is null");
  }

  @Override
  public String name() {
    return embedder.name();
  }

  @Override
  public int dimensions() {
    return embedder.dimensions();
  }

  @Override
  public float[] embed(String text) {
    return Plugins.withContextLoader(loader, () -> embedder.embed(text));
  }

  @Override
  public List<float[]> embedAll(List<String> texts) {
    return Plugins.withContextLoader(loader, () -> embedder.embedAll(texts));
  }
}
