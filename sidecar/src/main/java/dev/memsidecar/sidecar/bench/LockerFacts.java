package dev.memsidecar.sidecar.bench;

import dev.memsidecar.api.MemoryProvider;
import dev.memsidecar.api.MemoryRecord;
import dev.memsidecar.api.MemoryStore;
import dev.memsidecar.api.ProviderContext;
import dev.memsidecar.toolkit.HashEmbedder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Many facts that neither repeat nor contradict one another ("Zora7 keeps the violin in locker
 * 1042."), and a way to put records straight into a profile's store with its provider, as a bulk
 * import or data of a release before dedupe would have left them: what the maintenance benchmark
 * and the maintenance end-to-end tests consolidate.
 */
public final class LockerFacts {
  private static final String[] NAMES = {
    "Zora", "Milan", "Oskar", "Priya", "Tomas", "Ines", "Kenji", "Leila", "Ravi", "Sofia", "Anouk",
    "Bruno", "Chloe", "Dario", "Elif", "Farid", "Greta", "Hugo", "Ilse", "Jonas", "Kaito", "Lucia",
    "Mateo", "Nadia", "Omar", "Pavel", "Quinn", "Rosa", "Sven", "Talia", "Umar", "Vera", "Wren",
    "Xenia", "Yusuf", "Zeno", "Aiko", "Bodhi", "Cyra", "Dmitri", "Emre", "Freya", "Gianni", "Hana",
    "Ivo", "Juno", "Kofi", "Lena", "Mika", "Nils"
  };
  private static final String[] THINGS = {
    "violin",
    "bicycle",
    "passport",
    "laptop",
    "camera",
    "telescope",
    "guitar",
    "kayak",
    "tent",
    "drone",
    "microscope",
    "trumpet",
    "chessboard",
    "typewriter",
    "sewing machine",
    "skateboard",
    "snowboard",
    "projector",
    "harp",
    "cello",
    "accordion",
    "banjo",
    "metronome",
    "compass",
    "lantern",
    "hammock",
    "toolbox",
    "easel",
    "globe",
    "hourglass",
    "abacus",
    "barometer",
    "kettle",
    "wok",
    "blender",
    "juicer",
    "printer",
    "scanner",
    "router",
    "modem",
    "tripod",
    "saxophone",
    "flute",
    "clarinet",
    "oboe",
    "ukulele",
    "mandolin",
    "xylophone",
    "tambourine",
    "harmonica"
  };

  private LockerFacts() {}

  /**
   * Fact {@code i} (0 or more): a person and a thing of their own, so no two facts are duplicates
   * and none replaces another; past 2,500 facts the names take a number ("Zora7").
   */
  public static String fact(int i) {
    int round = i / (NAMES.length * THINGS.length);
    return NAMES[i % NAMES.length]
        + (round == 0 ? "" : Integer.toString(round))
        + " keeps the "
        + THINGS[(i / NAMES.length) % THINGS.length]
        + " in locker "
        + (1000 + i)
        + ".";
  }

  /**
   * Puts {@code records} into the store of the profile whose data folder is {@code profileDir},
   * opened with the provider named {@code provider} ({@code hash} vectors), with 4 threads; the
   * sidecar must not be running on it.
   */
  public static void seed(Path profileDir, String provider, List<MemoryRecord> records)
      throws Exception {
    MemoryProvider p =
        ServiceLoader.load(MemoryProvider.class).stream()
            .map(ServiceLoader.Provider::get)
            .filter(x -> x.name().equals(provider))
            .findFirst()
            .orElseThrow(() -> new IllegalArgumentException("no provider named " + provider));
    try (MemoryStore store =
            p.open(new ProviderContext("workspace", profileDir, Map.of(), new HashEmbedder()));
        ExecutorService pool = Executors.newFixedThreadPool(4)) {
      List<Future<?>> done = new ArrayList<>();
      for (int w = 0; w < 4; w++) {
        int first = w;
        done.add(
            pool.submit(
                () -> {
                  for (int i = first; i < records.size(); i += 4) {
                    store.put(records.get(i));
                  }
                }));
      }
      for (Future<?> f : done) {
        f.get();
      }
    }
  }
}
