package dev.memsidecar.core;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.api.Ids;
import dev.memsidecar.api.MemoryException;
import dev.memsidecar.api.MemoryRecord;
import dev.memsidecar.core.sessions.SessionMessage;
import dev.memsidecar.core.toolrules.ToolRule;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * A scope's data out and back in, for {@code memsidecar export | import}: its records with their
 * history, the workspace's tool rules, the user's session messages and the memory files, as items
 * written back exactly as they were read. Thread-safe.
 */
public final class ScopeTransfer {
  /** The most items one import call takes. */
  public static final int MAX_ITEMS = 500;

  /** One thing an export holds. */
  public sealed interface Item permits Record, Rule, Said, File {}

  /** A record of a profile (its own {@code profile}), with the context it was indexed with. */
  public record Record(MemoryRecord record) implements Item {}

  /** A tool rule of the workspace. */
  public record Rule(ToolRule rule) implements Item {}

  /** A message of one of the user's sessions ({@code sessionId} says which). */
  public record Said(SessionMessage message) implements Item {}

  /** A memory file or a curated file ({@code /MEMORY.md}, {@code /USER.md}) that has content. */
  public record File(String path, String content) implements Item {}

  /** What an import wrote, by kind. */
  public record Counts(int records, int rules, int messages, int files) {}

  private final MemoryEngine engine;

  public ScopeTransfer(MemoryEngine engine) {
    this.engine = requireNonNull(engine, "engine is null");
  }

  /**
   * Every item of the scope, in this order: records ({@link MemoryEngine#exportRecords}), the
   * workspace's tool rules, the user's session messages ({@code SessionService#export}), the memory
   * and curated files with content (published skills stay: PublishSkill makes them). What a flag
   * closes is left out, as the read of it would leave it out.
   */
  public void export(Scope scope, RequestOptions options, Consumer<Item> out) {
    NamespaceResolver.requireIds(scope);
    engine.exportRecords(scope, options, m -> out.accept(new Record(m.record())));
    engine.toolRules().list(scope, "", options).forEach(r -> out.accept(new Rule(r)));
    engine.sessions().export(scope, m -> out.accept(new Said(m)));
    List<String> paths = new ArrayList<>();
    engine.files().list(scope, options).forEach(f -> paths.add(f.path()));
    paths.add(CURATED_WORKSPACE);
    if (!scope.userId().isEmpty()) {
      paths.add(CURATED_USER);
    }
    for (String path : paths) {
      options.checkNotCancelled();
      MemoryFiles.FileView f = engine.files().read(scope, path, options);
      if (!f.file().content().isEmpty()) {
        out.accept(new File(f.path(), f.file().content()));
      }
    }
  }

  /** The curated files an export carries beside the memory files. */
  private static final String CURATED_WORKSPACE = "/MEMORY.md";

  private static final String CURATED_USER = "/USER.md";

  /**
   * Writes {@code items} into the scope as they were exported (see {@link MemoryEngine#restore},
   * {@code ToolRuleService#restore}); messages keep their ids, so importing them again adds
   * nothing; files are replaced. Stops at the first item that fails, naming it.
   */
  public Counts restore(Scope scope, List<Item> items, RequestOptions options) {
    NamespaceResolver.requireIds(scope);
    if (items.isEmpty()) {
      throw MemoryException.invalidArgument("items", "items is required (1.." + MAX_ITEMS + ")");
    }
    Limits.checkCount("items", items.size(), MAX_ITEMS);
    // Every item is checked before any is written: a bad one fails the call and changes nothing.
    for (int i = 0; i < items.size(); i++) {
      check(scope, items.get(i), "items[" + i + "]", options);
    }
    int records = 0;
    int rules = 0;
    int messages = 0;
    int files = 0;
    List<SessionMessage> run = new ArrayList<>();
    for (int i = 0; i < items.size(); i++) {
      options.checkNotCancelled();
      Item item = items.get(i);
      if (!(item instanceof Said)) {
        messages += flush(scope, run, options);
      }
      switch (item) {
        case Record r -> {
          engine.restore(scope, r.record().profile(), r.record(), options);
          records++;
        }
        case Rule r -> {
          engine.toolRules().restore(scope, r.rule(), options);
          rules++;
        }
        case Said s -> {
          if (!run.isEmpty()
              && (!run.get(0).sessionId().equals(s.message().sessionId())
                  || run.size() == dev.memsidecar.core.sessions.SessionService.MAX_MESSAGES)) {
            messages += flush(scope, run, options);
          }
          run.add(s.message());
        }
        case File f -> {
          engine.files().write(scope, f.path(), f.content(), "", options);
          files++;
        }
      }
    }
    messages += flush(scope, run, options);
    return new Counts(records, rules, messages, files);
  }

  private void check(Scope scope, Item item, String field, RequestOptions options) {
    switch (item) {
      case Record r -> engine.checkRestore(scope, r.record().profile(), r.record(), options);
      case Rule r -> engine.toolRules().checkRestore(scope, r.rule(), options);
      case Said s -> {
        Ids.require(field + ".message.session_id", s.message().sessionId());
        engine.sessions().checkAppend(sessionOf(scope, s.message()), List.of(s.message()), options);
      }
      case File f -> engine.files().checkWrite(scope, f.path(), f.content(), options);
    }
  }

  private static Scope sessionOf(Scope scope, SessionMessage m) {
    return new Scope(scope.workspaceId(), scope.userId(), scope.agentId(), m.sessionId());
  }

  /** Appends the messages of one session gathered so far; returns how many. */
  private int flush(Scope scope, List<SessionMessage> run, RequestOptions options) {
    if (run.isEmpty()) {
      return 0;
    }
    engine.sessions().append(sessionOf(scope, run.get(0)), List.copyOf(run), options);
    int n = run.size();
    run.clear();
    return n;
  }
}
