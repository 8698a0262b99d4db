package dev.memsidecar.core;

import dev.memsidecar.api.ExtractionRequest;
import dev.memsidecar.api.Extractor;
import dev.memsidecar.api.ExtractorProvider;
import dev.memsidecar.api.GateScores;
import dev.memsidecar.api.MemoryCandidate;
import dev.memsidecar.api.MemoryException;
import dev.memsidecar.api.MemoryKind;
import dev.memsidecar.api.Settings;
import dev.memsidecar.api.Validity;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * A test extractor whose candidates are spelled out in the run's input, one per line, so a test
 * says exactly what EndRun receives: {@code owner|kind|score|explicit|validity|content} (e.g.
 * {@code user|semantic|8|false|long|Alice prefers tea}); other lines are ignored. The score is
 * given to all six gate dimensions. An input holding {@code FAIL} makes any of them but the one
 * named "rules" throw UNAVAILABLE, for the fallback.
 */
final class ScriptedExtractor implements Extractor {
  private final boolean mayFail;

  private ScriptedExtractor(boolean mayFail) {
    this.mayFail = mayFail;
  }

  static NamedServices<ExtractorProvider> provider() {
    return provider(new String[] {"rules"});
  }

  /** Scripted extractors under each of {@code names}. */
  static NamedServices<ExtractorProvider> provider(String... names) {
    List<ExtractorProvider> providers = new ArrayList<>();
    for (String name : names) {
      providers.add(
          new ExtractorProvider() {
            @Override
            public String name() {
              return name;
            }

            @Override
            public Extractor open(Settings settings) {
              settings.requireOnly(Set.of());
              return new ScriptedExtractor(!name.equals("rules"));
            }
          });
    }
    return NamedServices.of("extractor", ExtractorProvider::name, x -> Set.of(), providers);
  }

  /** One scripted line. */
  static String line(String owner, String kind, int score, boolean explicit, String content) {
    return owner + "|" + kind + "|" + score + "|" + explicit + "|long|" + content;
  }

  /** One scripted short-term line. */
  static String shortTerm(String owner, String kind, int score, String content) {
    return owner + "|" + kind + "|" + score + "|false|short|" + content;
  }

  @Override
  public List<MemoryCandidate> extract(ExtractionRequest request) {
    if (mayFail && request.input().contains("FAIL")) {
      throw MemoryException.unavailable("scripted failure", null);
    }
    List<MemoryCandidate> out = new ArrayList<>();
    for (String line : (request.input() + "\n" + request.output()).split("\n")) {
      String[] f = line.split("\\|", 6);
      if (f.length < 6) {
        continue;
      }
      float score = Float.parseFloat(f[2]);
      out.add(
          new MemoryCandidate(
              f[5],
              MemoryKind.valueOf(f[1].toUpperCase(Locale.ROOT)),
              MemoryCandidate.Owner.valueOf(f[0].toUpperCase(Locale.ROOT)),
              "",
              new GateScores(score, score, score, score, score, score),
              Boolean.parseBoolean(f[3]),
              f[4].equals("short") ? Validity.SHORT_TERM : Validity.LONG_TERM,
              List.of("scripted"),
              line,
              "scripted line"));
    }
    return out;
  }
}
