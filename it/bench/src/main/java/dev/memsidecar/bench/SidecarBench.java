package dev.memsidecar.bench;

import dev.memsidecar.proto.v1.MemoryServiceGrpc;
import dev.memsidecar.proto.v1.MemoryServiceGrpc.MemoryServiceBlockingStub;
import dev.memsidecar.proto.v1.RememberRequest;
import dev.memsidecar.proto.v1.RememberResponse;
import dev.memsidecar.proto.v1.Scope;
import dev.memsidecar.proto.v1.SearchHit;
import dev.memsidecar.proto.v1.SearchRequest;
import dev.memsidecar.proto.v1.SearchResponse;
import dev.memsidecar.proto.v1.WriteOutcome;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Benchmarks the built sidecar jar over loopback gRPC: cold start (spawn to {@code listening on}),
 * Remember latency and throughput into one namespace, Search latency from one client thread and
 * Search throughput from several. Prints a markdown table and the machine facts.
 *
 * <pre>
 * java -jar it/bench/target/memsidecar-bench.jar [--jar sidecar/target/memsidecar.jar]
 *     [--records 10000] [--searches 2000] [--starts 5] [--warmup 500] [--threads 4] [--seed 42]
 * </pre>
 */
public final class SidecarBench {
  private static final Pattern LISTENING = Pattern.compile("^listening on (.+):(\\d+)$");
  private static final long READY_LIMIT_SECONDS = 120;
  private static final Set<String> STOPWORDS =
      Set.of(
          "a", "an", "and", "are", "as", "at", "be", "but", "by", "do", "for", "from", "has",
          "have", "in", "into", "is", "it", "its", "of", "on", "or", "our", "so", "that", "the",
          "their", "then", "this", "to", "was", "we", "with", "after", "before", "every", "each",
          "during", "ticket");

  private final Options options;

  private SidecarBench(Options options) {
    this.options = options;
  }

  public static void main(String[] args) throws Exception {
    Options options;
    try {
      options = Options.parse(args);
    } catch (IllegalArgumentException e) {
      System.err.println("error: " + e.getMessage());
      System.err.println(Options.USAGE);
      System.exit(2);
      return;
    }
    if (options.help) {
      System.out.println(Options.USAGE);
      return;
    }
    if (!Files.isRegularFile(options.jar)) {
      System.err.println(
          "sidecar jar not found at "
              + options.jar.toAbsolutePath()
              + ": run mvn package first, or pass --jar PATH");
      System.exit(2);
      return;
    }
    new SidecarBench(options).run();
  }

  private void run() throws Exception {
    System.out.printf(
        Locale.ROOT,
        "memsidecar bench: jar %s, provider %s, writers %d, records %d, searches %d, starts %d,"
            + " warmup %d, threads %d, seed %d%n",
        options.jar.toAbsolutePath().normalize(),
        options.provider == null ? "default" : options.provider,
        options.writers,
        options.records,
        options.searches,
        options.starts,
        options.warmup,
        options.threads,
        options.seed);

    List<Row> rows = new ArrayList<>();

    // (a) cold start
    long[] starts = new long[options.starts];
    for (int i = 0; i < options.starts; i++) {
      Path ws = Files.createTempDirectory("memsidecar-bench-start");
      try (Sidecar sidecar = Sidecar.start(options.jar, options.launcher, ws, options.provider)) {
        starts[i] = sidecar.startNanos;
        System.out.printf(
            Locale.ROOT, "cold start %d: %.1f ms%n", i + 1, Figures.millis(starts[i]));
        sidecar.terminate();
      } finally {
        Figures.deleteTree(ws);
      }
    }
    if (options.starts > 0) {
      System.out.printf(
          Locale.ROOT, "cold start median: %.1f ms%n", Figures.millis(Figures.median(starts)));
      rows.add(Row.of("cold start (spawn -> listening)", starts, null));
    }

    // (b) and (c) on one fresh sidecar
    Path ws = Files.createTempDirectory("memsidecar-bench-ws");
    try (Sidecar sidecar = Sidecar.start(options.jar, options.launcher, ws, options.provider)) {
      MemoryServiceBlockingStub stub = MemoryServiceGrpc.newBlockingStub(sidecar.channel);
      Scope scope = Scope.newBuilder().setWorkspaceId("bench").build();
      Scope warmupScope = Scope.newBuilder().setWorkspaceId("bench-warmup").build();
      Sentences sentences = new Sentences(options.seed);

      for (int i = 0; i < options.warmup; i++) {
        remember(stub, warmupScope, sentences.next());
      }
      List<String> texts = new ArrayList<>(options.records);
      for (int i = 0; i < options.records; i++) {
        texts.add(sentences.next());
      }
      String[] idArray = new String[options.records];
      long[] rememberNanos = new long[options.records];
      Map<WriteOutcome, Integer> outcomes = new EnumMap<>(WriteOutcome.class);
      int writers = options.writers;
      ExecutorService writerPool = Executors.newFixedThreadPool(writers);
      long t0 = System.nanoTime();
      List<Future<?>> work = new ArrayList<>();
      for (int w = 0; w < writers; w++) {
        int first = w;
        work.add(
            writerPool.submit(
                () -> {
                  for (int i = first; i < options.records; i += writers) {
                    long s = System.nanoTime();
                    RememberResponse response = remember(stub, scope, texts.get(i));
                    rememberNanos[i] = System.nanoTime() - s;
                    idArray[i] = response.getDecision().getMemory().getId();
                    synchronized (outcomes) {
                      outcomes.merge(response.getDecision().getOutcome(), 1, Integer::sum);
                    }
                    if (first == 0 && (i + writers) % 10_000 < writers) {
                      System.out.printf(
                          Locale.ROOT, "  remembered ~%d/%d%n", i + 1, options.records);
                    }
                  }
                  return null;
                }));
      }
      for (Future<?> f : work) {
        f.get();
      }
      writerPool.shutdown();
      long rememberWall = System.nanoTime() - t0;
      List<String> ids = List.of(idArray);
      rows.add(
          Row.of(
              "Remember, " + writers + " client thread" + (writers == 1 ? "" : "s"),
              rememberNanos,
              options.records / Figures.seconds(rememberWall)));
      System.out.println("Remember outcomes: " + outcomes);

      if (options.records > 0) {
        Random random = new Random(options.seed + 1);
        List<Query> warmQueries = queries(texts, ids, options.warmup, random);
        for (Query q : warmQueries) {
          search(stub, scope, q.text);
        }
        List<Query> queries = queries(texts, ids, options.searches, random);
        long[] searchNanos = new long[queries.size()];
        int found = 0;
        long s0 = System.nanoTime();
        for (int i = 0; i < queries.size(); i++) {
          Query q = queries.get(i);
          long s = System.nanoTime();
          SearchResponse response = search(stub, scope, q.text);
          searchNanos[i] = System.nanoTime() - s;
          if (contains(response, q.sourceId)) {
            found++;
          }
        }
        long searchWall = System.nanoTime() - s0;
        rows.add(
            Row.of(
                "Search top 8, 1 client thread",
                searchNanos,
                queries.size() / Figures.seconds(searchWall)));
        double recall = queries.isEmpty() ? 0 : 100.0 * found / queries.size();

        long[][] perThread = new long[options.threads][];
        ExecutorService pool = Executors.newFixedThreadPool(options.threads);
        try {
          List<Future<?>> futures = new ArrayList<>();
          int each = Math.max(1, queries.size() / options.threads);
          long c0 = System.nanoTime();
          for (int t = 0; t < options.threads; t++) {
            int thread = t;
            List<Query> mine = queries(texts, ids, each, new Random(options.seed + 100 + t));
            futures.add(
                pool.submit(
                    () -> {
                      long[] lat = new long[mine.size()];
                      for (int i = 0; i < mine.size(); i++) {
                        long s = System.nanoTime();
                        search(stub, scope, mine.get(i).text);
                        lat[i] = System.nanoTime() - s;
                      }
                      perThread[thread] = lat;
                    }));
          }
          for (Future<?> f : futures) {
            f.get();
          }
          long concurrentWall = System.nanoTime() - c0;
          long[] all = Stream.of(perThread).flatMapToLong(Arrays::stream).toArray();
          rows.add(
              Row.of(
                  "Search top 8, " + options.threads + " client threads",
                  all,
                  all.length / Figures.seconds(concurrentWall)));
        } finally {
          pool.shutdownNow();
        }
        System.out.printf(
            Locale.ROOT,
            "Search: the record a query was drawn from is in the top 8 for %.1f%% of queries%n",
            recall);
      }
      int exit = sidecar.terminate();
      System.out.println("sidecar exit code after SIGTERM: " + exit);
    } finally {
      Figures.deleteTree(ws);
    }

    System.out.println();
    System.out.println("| measurement | n | p50 ms | p90 ms | p99 ms | max ms | throughput /s |");
    System.out.println("|---|---:|---:|---:|---:|---:|---:|");
    for (Row row : rows) {
      System.out.println(row.markdown());
    }
    System.out.println();
    System.out.printf(
        Locale.ROOT,
        "machine: %d cores, %s %s (%s), java %s (%s), max heap of bench JVM %d MiB%n",
        Runtime.getRuntime().availableProcessors(),
        System.getProperty("os.name"),
        System.getProperty("os.version"),
        System.getProperty("os.arch"),
        Runtime.version(),
        System.getProperty("java.vm.name"),
        Runtime.getRuntime().maxMemory() / (1024 * 1024));
  }

  private static RememberResponse remember(
      MemoryServiceBlockingStub stub, Scope scope, String text) {
    return stub.withDeadlineAfter(60, TimeUnit.SECONDS)
        .remember(
            RememberRequest.newBuilder()
                .setScope(scope)
                .setProfile("workspace")
                .setContent(text)
                .build());
  }

  private static SearchResponse search(MemoryServiceBlockingStub stub, Scope scope, String q) {
    return stub.withDeadlineAfter(60, TimeUnit.SECONDS)
        .search(SearchRequest.newBuilder().setScope(scope).setQuery(q).build());
  }

  private static boolean contains(SearchResponse response, String id) {
    for (SearchHit hit : response.getHitsList()) {
      if (hit.getMemory().getId().equals(id)) {
        return true;
      }
    }
    return false;
  }

  private record Query(String text, String sourceId) {}

  /** {@code n} queries of 2-4 words, each drawn from one stored text. */
  private static List<Query> queries(List<String> texts, List<String> ids, int n, Random random) {
    List<Query> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      int source = random.nextInt(texts.size());
      List<String> words = keywords(texts.get(source));
      int want = Math.min(words.size(), 2 + random.nextInt(3));
      Set<Integer> picked = new TreeSet<>();
      while (picked.size() < want) {
        picked.add(random.nextInt(words.size()));
      }
      StringBuilder q = new StringBuilder();
      for (int index : picked) {
        if (!q.isEmpty()) {
          q.append(' ');
        }
        q.append(words.get(index));
      }
      out.add(new Query(q.toString(), ids.get(source)));
    }
    return out;
  }

  private static List<String> keywords(String text) {
    Set<String> words = new LinkedHashSet<>();
    for (String w : text.split("[^\\p{L}\\p{N}]+")) {
      String lower = w.toLowerCase(Locale.ROOT);
      if (lower.length() > 2
          && !STOPWORDS.contains(lower)
          && !lower.chars().allMatch(Character::isDigit)) {
        words.add(w);
      }
    }
    return new ArrayList<>(words);
  }

  private record Row(String name, long[] sorted, Double throughput) {
    static Row of(String name, long[] nanos, Double throughput) {
      long[] sorted = nanos.clone();
      Arrays.sort(sorted);
      return new Row(name, sorted, throughput);
    }

    String markdown() {
      return String.format(
          Locale.ROOT,
          "| %s | %d | %.2f | %.2f | %.2f | %.2f | %s |",
          name,
          sorted.length,
          Figures.millis(Figures.percentile(sorted, 50)),
          Figures.millis(Figures.percentile(sorted, 90)),
          Figures.millis(Figures.percentile(sorted, 99)),
          Figures.millis(sorted.length == 0 ? 0 : sorted[sorted.length - 1]),
          throughput == null ? "-" : String.format(Locale.ROOT, "%.0f", throughput));
    }
  }

  /** A sidecar child process: {@code <java> -jar JAR serve --workspace DIR --port 0}. */
  static final class Sidecar implements AutoCloseable {
    final Process process;
    final long startNanos;
    final ManagedChannel channel;
    final Path stderr;

    private Sidecar(Process process, long startNanos, String host, int port, Path stderr) {
      this.process = process;
      this.startNanos = startNanos;
      this.stderr = stderr;
      String dial = host.equals("0.0.0.0") ? "127.0.0.1" : host;
      this.channel =
          Grpc.newChannelBuilderForAddress(dial, port, InsecureChannelCredentials.create()).build();
    }

    /** Starts {@code java -jar jar}, or the {@code launcher} script when one is given. */
    static Sidecar start(Path jar, Path launcher, Path workspace, String provider)
        throws IOException, InterruptedException {
      if (provider != null) {
        Path profile = workspace.resolve("config/memory/workspace.yaml");
        Files.createDirectories(profile.getParent());
        Files.writeString(
            profile,
            "apiVersion: memsidecar.dev/v1\nkind: Memory\nmetadata:\n  name: workspace\n"
                + "spec:\n  provider: "
                + provider
                + "\n  profile: workspace\n");
      }
      Path stderr = Files.createTempFile("memsidecar-bench", ".stderr.log");
      List<String> command = new ArrayList<>();
      if (launcher == null) {
        command.addAll(
            List.of(
                ProcessHandle.current().info().command().orElseThrow(),
                "-jar",
                jar.toAbsolutePath().toString()));
      } else {
        command.add(launcher.toAbsolutePath().toString());
      }
      command.addAll(
          List.of("serve", "--workspace", workspace.toAbsolutePath().toString(), "--port", "0"));
      ProcessBuilder builder = new ProcessBuilder(command);
      builder.environment().remove("MEMSIDECAR_HOST");
      builder.environment().remove("MEMSIDECAR_PORT");
      builder.environment().remove("MEMSIDECAR_DATA");
      builder.redirectError(stderr.toFile());
      long t0 = System.nanoTime();
      Process process = builder.start();
      CompletableFuture<long[]> ready = new CompletableFuture<>();
      AtomicInteger portHolder = new AtomicInteger();
      String[] hostHolder = new String[1];
      Thread reader =
          new Thread(
              () -> {
                try (BufferedReader in =
                    new BufferedReader(
                        new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                  String line;
                  while ((line = in.readLine()) != null) {
                    Matcher m = LISTENING.matcher(line);
                    if (!ready.isDone() && m.matches()) {
                      long elapsed = System.nanoTime() - t0;
                      hostHolder[0] = m.group(1);
                      portHolder.set(Integer.parseInt(m.group(2)));
                      ready.complete(new long[] {elapsed});
                    }
                  }
                  ready.completeExceptionally(new IllegalStateException("stdout closed"));
                } catch (IOException e) {
                  ready.completeExceptionally(e);
                }
              },
              "sidecar-stdout");
      reader.setDaemon(true);
      reader.start();
      long elapsed;
      try {
        elapsed = ready.get(READY_LIMIT_SECONDS, TimeUnit.SECONDS)[0];
      } catch (TimeoutException | ExecutionException e) {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
        throw new IllegalStateException(
            "sidecar did not print `listening on` (" + e + "); stderr:\n" + tail(stderr), e);
      }
      return new Sidecar(process, elapsed, hostHolder[0], portHolder.get(), stderr);
    }

    int terminate() throws InterruptedException {
      channel.shutdownNow();
      process.destroy();
      if (!process.waitFor(60, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        System.err.println("sidecar ignored SIGTERM for 60 s; killed");
        return -1;
      }
      return process.exitValue();
    }

    @Override
    public void close() throws IOException, InterruptedException {
      channel.shutdownNow();
      if (process.isAlive()) {
        terminate();
      }
      Files.deleteIfExists(stderr);
    }

    private static String tail(Path file) {
      try {
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
      } catch (IOException e) {
        return "(unreadable: " + e + ")";
      }
    }
  }

  /** Command-line options. */
  private record Options(
      Path jar,
      Path launcher,
      String provider,
      int writers,
      int records,
      int searches,
      int starts,
      int warmup,
      int threads,
      long seed,
      boolean help) {
    static final String USAGE =
        "usage: java -jar memsidecar-bench.jar [--jar PATH] [--launcher PATH] [--provider NAME]"
            + " [--writers N] [--records N]"
            + " [--searches N]"
            + " [--starts N] [--warmup N] [--threads N] [--seed N]\n"
            + "  --jar       sidecar jar (default sidecar/target/memsidecar.jar)\n"
            + "  --launcher  start the sidecar with this script (e.g. sidecar/bin/memsidecar)"
            + " instead of java -jar\n"
            + "  --provider  provider of the workspace profile (default: langmem-sqlite)\n"
            + "  --writers   client threads for the Remember phase (default 1)\n"
            + "  --records   Remember calls into one namespace (default 10000)\n"
            + "  --searches  Search calls (default 2000)\n"
            + "  --starts    cold starts on fresh workspaces (default 5)\n"
            + "  --warmup    warm-up calls before each measured phase (default 500)\n"
            + "  --threads   client threads for the concurrent Search phase (default 4)\n"
            + "  --seed      RNG seed for texts and queries (default 42)";

    static Options parse(String[] args) {
      Path jar = Path.of("sidecar", "target", "memsidecar.jar");
      Path launcher = null;
      String provider = null;
      int writers = 1;
      int records = 10_000;
      int searches = 2_000;
      int starts = 5;
      int warmup = 500;
      int threads = 4;
      long seed = 42;
      boolean help = false;
      for (int i = 0; i < args.length; i++) {
        String arg = args[i];
        switch (arg) {
          case "--help", "-h" -> help = true;
          case "--jar" -> jar = Path.of(value(args, ++i, arg));
          case "--launcher" -> launcher = Path.of(value(args, ++i, arg));
          case "--provider" -> provider = value(args, ++i, arg);
          case "--writers" -> writers = Math.max(1, count(value(args, ++i, arg), arg));
          case "--records" -> records = count(value(args, ++i, arg), arg);
          case "--searches" -> searches = count(value(args, ++i, arg), arg);
          case "--starts" -> starts = count(value(args, ++i, arg), arg);
          case "--warmup" -> warmup = count(value(args, ++i, arg), arg);
          case "--threads" -> threads = Math.max(1, count(value(args, ++i, arg), arg));
          case "--seed" -> seed = Long.parseLong(value(args, ++i, arg));
          default -> throw new IllegalArgumentException("unknown argument " + arg);
        }
      }
      return new Options(
          jar, launcher, provider, writers, records, searches, starts, warmup, threads, seed, help);
    }

    private static String value(String[] args, int i, String flag) {
      if (i >= args.length) {
        throw new IllegalArgumentException(flag + " needs a value");
      }
      return args[i];
    }

    private static int count(String value, String flag) {
      try {
        int n = Integer.parseInt(value);
        if (n < 0) {
          throw new IllegalArgumentException(flag + " must be >= 0, got " + value);
        }
        return n;
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(flag + " needs a number, got " + value);
      }
    }
  }

  /** Realistic English sentences about a team, from a seeded vocabulary. Not thread-safe. */
  static final class Sentences {
    private static final List<String> NAMES =
        List.of(
            "Alice", "Bruno", "Chen", "Dana", "Emeka", "Farah", "Goran", "Hana", "Ines", "Jonas",
            "Kiran", "Lena", "Mateo", "Nadia", "Omar", "Priya", "Quentin", "Rosa", "Sven", "Tariq",
            "Uma", "Viktor", "Wen", "Ximena", "Yusuf", "Zoe");
    private static final List<String> VERBS =
        List.of(
            "prefers",
            "avoids",
            "reviews",
            "schedules",
            "deploys",
            "documents",
            "tests",
            "migrates",
            "monitors",
            "archives",
            "refactors",
            "benchmarks",
            "approves",
            "drafts",
            "rotates",
            "patches",
            "audits",
            "profiles",
            "mentors on",
            "demos",
            "owns",
            "escalates",
            "debugs",
            "plans",
            "cleans up");
    private static final List<String> OBJECTS =
        List.of(
            "dark roast coffee",
            "the billing service",
            "green tea",
            "the release notes",
            "the staging cluster",
            "flaky integration tests",
            "the Postgres replica",
            "quarterly budget slides",
            "the onboarding checklist",
            "TLS certificates",
            "the Kafka consumer",
            "design review comments",
            "the mobile login screen",
            "weekly metrics dashboards",
            "the payment webhook",
            "legacy cron jobs",
            "the search ranking model",
            "customer support macros",
            "the Terraform modules",
            "oat milk cappuccinos",
            "the incident runbook",
            "vendor contracts",
            "the accessibility audit",
            "error budget reports",
            "the GraphQL gateway",
            "nightly backups",
            "the feature flag cleanup",
            "sprint retrospectives",
            "the data retention policy",
            "pairing sessions",
            "the Redis cache",
            "the CI pipeline",
            "the iOS build",
            "the pricing page",
            "the SSO integration",
            "the Android beta",
            "the churn report",
            "the load balancer config",
            "the Helm charts",
            "the audit log exporter");
    private static final List<String> TIMES =
        List.of(
            "before the 9am standup",
            "every Friday afternoon",
            "right after lunch",
            "during the on-call week",
            "at the end of each sprint",
            "on Monday mornings",
            "before every release",
            "late in the evening",
            "after the product sync",
            "while travelling",
            "twice a month",
            "in the Lisbon office",
            "from the Berlin hub",
            "ahead of board meetings",
            "during quiet hours",
            "when the pager is quiet",
            "before quarterly planning",
            "on the first Tuesday of the month");
    private static final List<String> REASONS =
        List.of(
            "because the last outage started there",
            "since the customer asked for it",
            "to keep the error budget healthy",
            "so the auditors stay happy",
            "because it saves the team an hour a week",
            "after the postmortem recommended it",
            "to unblock the mobile team",
            "as agreed in the architecture review",
            "",
            "",
            "");

    private final Random random;
    private int index;

    Sentences(long seed) {
      this.random = new Random(seed);
    }

    String next() {
      String reason = pick(REASONS);
      String sentence =
          String.format(
              Locale.ROOT,
              "%s %s %s %s%s (ticket %d).",
              pick(NAMES),
              pick(VERBS),
              pick(OBJECTS),
              pick(TIMES),
              reason.isEmpty() ? "" : " " + reason,
              1000 + index);
      index++;
      return sentence;
    }

    private String pick(List<String> words) {
      return words.get(random.nextInt(words.size()));
    }
  }
}
