package dev.memsidecar.provider.embedder;

import static java.util.Objects.requireNonNull;

import ai.onnxruntime.NodeInfo;
import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import ai.onnxruntime.TensorInfo;
import dev.memsidecar.api.Embedder;
import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.nio.LongBuffer;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One loaded model: its tokenizer and an ONNX Runtime session. {@link #run} embeds a batch of
 * token-id rows in one session run: rows padded to the longest with an attention mask, the hidden
 * state of each row's first token ({@code [CLS]}) taken and scaled to unit length, which is how the
 * bge models pool. Thread-safe: ONNX Runtime sessions take concurrent runs.
 *
 * <p>Memory. A run's inputs and its output live in direct buffers this class keeps and reuses
 * ({@link Scratch}, at most {@link #POOLED_SCRATCH} of them), and ONNX Runtime writes the hidden
 * states straight into the output buffer: otherwise every run copied them (rows x tokens x
 * dimensions floats, 3 MiB for 32 rows of 64 tokens, of which only the 32 {@code [CLS]} rows are
 * read) into a new array on the Java heap, which G1 answered by growing the heap. With {@code
 * arena} off (the default, see {@link OnnxBertEmbedder#ARENA_PROPERTY}) ONNX Runtime takes a run's
 * working memory from the C library and gives it back after the run, instead of keeping it in its
 * CPU arena, which grows to the largest runs seen (in chunks that double) and never shrinks.
 */
final class OnnxBertEncoder implements AutoCloseable {
  private static final String INPUT_IDS = "input_ids";
  private static final String ATTENTION_MASK = "attention_mask";
  private static final String TOKEN_TYPE_IDS = "token_type_ids";

  /** The most {@link Scratch} buffers kept between runs; more concurrent runs make their own. */
  static final int POOLED_SCRATCH = 2;

  /**
   * The tokens (rows x padded length) a new scratch holds at least: a run {@link BatchPlan} cuts.
   */
  static final int MIN_SCRATCH_TOKENS = (int) BatchPlan.TOKEN_BUDGET;

  private final ModelSpec spec;
  private final BertTokenizer tokenizer;
  private final OrtEnvironment env;
  private final OrtSession session;
  private final String outputName;
  private final boolean tokenTypes;
  private final String loadTimes;
  private final ConcurrentLinkedQueue<Scratch> scratch = new ConcurrentLinkedQueue<>();
  private final AtomicInteger pooled = new AtomicInteger();

  private OnnxBertEncoder(
      ModelSpec spec,
      BertTokenizer tokenizer,
      OrtEnvironment env,
      OrtSession session,
      String outputName,
      boolean tokenTypes,
      String loadTimes) {
    this.spec = spec;
    this.tokenizer = tokenizer;
    this.env = env;
    this.session = session;
    this.outputName = outputName;
    this.tokenTypes = tokenTypes;
    this.loadTimes = loadTimes;
  }

  /**
   * Loads the tokenizer and the model from the class path.
   *
   * @param intraOpThreads ONNX Runtime's threads per run, 0 for its default (the physical cores)
   * @param arena whether ONNX Runtime keeps a run's working memory in its CPU arena (and its memory
   *     pattern, planned per input shape) rather than taking it from the C library for each run
   * @throws IOException if a resource is missing or unreadable, or the model does not fit the spec
   */
  static OnnxBertEncoder load(ModelSpec spec, int intraOpThreads, boolean arena)
      throws IOException {
    requireNonNull(spec, "spec is null");
    long t0 = System.nanoTime();
    // The tokenizer loads on its own thread while the model is read and ONNX Runtime starts.
    FutureTask<BertTokenizer> tokenizerLoad = new FutureTask<>(() -> readTokenizer(spec));
    Thread thread = new Thread(tokenizerLoad, "tokenizer-load-" + spec.name());
    thread.setDaemon(true);
    thread.start();
    ModelFile model = ModelFile.of(resource(spec.model()));
    long t1 = System.nanoTime();
    NativeLibraries.configure();
    NativeExit.GATE.enter();
    try {
      OrtEnvironment env = OrtEnvironment.getEnvironment();
      NativeLibraries.loaded();
      long t2 = System.nanoTime();
      OrtSession session;
      try (OrtSession.SessionOptions options = new OrtSession.SessionOptions()) {
        options.setOptimizationLevel(OrtSession.SessionOptions.OptLevel.ALL_OPT);
        if (intraOpThreads > 0) {
          options.setIntraOpNumThreads(intraOpThreads);
        }
        // Idle ORT threads would otherwise spin between runs, taking CPU from the server.
        options.addConfigEntry("session.intra_op.allow_spinning", "0");
        options.setCPUArenaAllocator(arena);
        // The pattern is one block per input shape, planned on a shape's second run and cached
        // for the session's life: worth it with the arena, a map of every shape seen without it.
        options.setMemoryPatternOptimization(arena);
        session = env.createSession(model.path().toString(), options);
      } finally {
        model.close();
      }
      long t3 = System.nanoTime();
      try {
        BertTokenizer tokenizer = joinTokenizer(tokenizerLoad);
        long t4 = System.nanoTime();
        String times =
            String.format(
                Locale.ROOT,
                "model file %d ms, runtime %d ms, session %d ms, then waited %d ms for the"
                    + " tokenizer (read beside them)",
                (t1 - t0) / 1_000_000,
                (t2 - t1) / 1_000_000,
                (t3 - t2) / 1_000_000,
                (t4 - t3) / 1_000_000);
        Map<String, NodeInfo> inputs = session.getInputInfo();
        if (!inputs.containsKey(INPUT_IDS) || !inputs.containsKey(ATTENTION_MASK)) {
          throw new IOException(
              spec.model() + ": inputs " + inputs.keySet() + " lack input_ids or attention_mask");
        }
        Map.Entry<String, NodeInfo> first = session.getOutputInfo().entrySet().iterator().next();
        NodeInfo output = first.getValue();
        long[] shape = ((TensorInfo) output.getInfo()).getShape();
        if (shape.length != 3 || shape[2] != spec.dimensions()) {
          throw new IOException(
              spec.model()
                  + ": output shape "
                  + Arrays.toString(shape)
                  + " is not [batch, tokens, "
                  + spec.dimensions()
                  + "]");
        }
        return new OnnxBertEncoder(
            spec,
            tokenizer,
            env,
            session,
            first.getKey(),
            inputs.containsKey(TOKEN_TYPE_IDS),
            times);
      } catch (IOException | RuntimeException e) {
        session.close();
        throw e;
      }
    } catch (OrtException e) {
      throw new IOException(spec.model() + ": ONNX Runtime cannot load it: " + e.getMessage(), e);
    } finally {
      NativeExit.GATE.leave();
    }
  }

  private static BertTokenizer readTokenizer(ModelSpec spec) throws IOException {
    try (InputStream in = resource(spec.tokenizer()).openStream()) {
      return BertTokenizer.read(in);
    }
  }

  private static BertTokenizer joinTokenizer(FutureTask<BertTokenizer> load) throws IOException {
    try {
      return load.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while loading the tokenizer", e);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof IOException io) {
        throw io;
      }
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      throw new IOException("cannot load the tokenizer: " + e.getCause(), e.getCause());
    }
  }

  private static URL resource(String name) throws IOException {
    URL url = OnnxBertEncoder.class.getResource(name);
    if (url == null) {
      throw new IOException(name + " is not on the class path (the model artifact is missing)");
    }
    return url;
  }

  ModelSpec spec() {
    return spec;
  }

  /** How long each step of {@link #load} took, for the log. */
  String loadTimes() {
    return loadTimes;
  }

  /** The token ids of {@code text}, cut to the model's limit; two ids when it has no token. */
  int[] tokenize(String text) {
    return tokenizer.encode(text, spec.maxTokens());
  }

  /**
   * The unit vectors of the rows, in order, from one session run.
   *
   * @param rows token-id rows from {@link #tokenize}, each of at least 1 and at most {@code
   *     maxTokens} ids
   * @throws IllegalStateException if ONNX Runtime fails
   */
  float[][] run(List<int[]> rows) {
    int batch = rows.size();
    if (batch == 0) {
      return new float[0][];
    }
    int width = 0;
    for (int[] row : rows) {
      width = Math.max(width, row.length);
    }
    int tokens = Math.multiplyExact(batch, width);
    int dims = spec.dimensions();
    Scratch s = takeScratch(tokens);
    try {
      LongBuffer ids = s.ids.clear();
      LongBuffer mask = s.mask.clear();
      for (int[] row : rows) {
        for (int i = 0; i < width; i++) {
          ids.put(i < row.length ? row[i] : 0);
          mask.put(i < row.length ? 1 : 0);
        }
      }
      ids.flip();
      mask.flip();
      long[] shape = {batch, width};
      FloatBuffer hidden = s.hidden.clear().limit(tokens * dims);
      Map<String, OnnxTensor> inputs = new HashMap<>();
      OnnxTensor output = null;
      NativeExit.GATE.enter();
      try {
        inputs.put(INPUT_IDS, OnnxTensor.createTensor(env, ids, shape));
        inputs.put(ATTENTION_MASK, OnnxTensor.createTensor(env, mask, shape));
        if (tokenTypes) {
          // Never written: all zeros, as allocated.
          inputs.put(
              TOKEN_TYPE_IDS, OnnxTensor.createTensor(env, s.types.clear().limit(tokens), shape));
        }
        output = OnnxTensor.createTensor(env, hidden, new long[] {batch, width, dims});
        try (OrtSession.Result result = session.run(inputs, Map.of(outputName, output))) {
          float[][] out = new float[batch][];
          for (int b = 0; b < batch; b++) {
            float[] cls = new float[dims];
            hidden.get(b * width * dims, cls);
            out[b] = Embedder.unit(cls);
          }
          return out;
        }
      } catch (OrtException e) {
        throw new IllegalStateException(
            spec.name() + ": ONNX Runtime failed on a batch of " + batch + ": " + e.getMessage(),
            e);
      } finally {
        for (OnnxTensor t : inputs.values()) {
          t.close();
        }
        if (output != null) {
          output.close();
        }
        NativeExit.GATE.leave();
      }
    } finally {
      returnScratch(s);
    }
  }

  /** A pooled scratch that holds {@code tokens}, or a new one sized for the run. */
  private Scratch takeScratch(int tokens) {
    Scratch s = scratch.poll();
    if (s != null) {
      pooled.decrementAndGet();
      if (s.tokens >= tokens) {
        return s;
      }
      // Too small: dropped (the GC frees its direct memory), a larger one takes its place.
    }
    return new Scratch(Math.max(tokens, MIN_SCRATCH_TOKENS), spec.dimensions());
  }

  private void returnScratch(Scratch s) {
    if (pooled.incrementAndGet() <= POOLED_SCRATCH) {
      scratch.add(s);
    } else {
      pooled.decrementAndGet();
    }
  }

  /** How many scratch buffers are kept between runs (tests). */
  int pooledScratch() {
    return scratch.size();
  }

  /**
   * The direct buffers of one run: token ids, attention mask, token types (zeros) and the hidden
   * states ONNX Runtime writes, for up to {@code tokens} rows x padded length. One run at a time.
   */
  private static final class Scratch {
    final int tokens;
    final LongBuffer ids;
    final LongBuffer mask;
    final LongBuffer types;
    final FloatBuffer hidden;

    Scratch(int tokens, int dims) {
      this.tokens = tokens;
      this.ids = direct(Math.multiplyExact(tokens, Long.BYTES)).asLongBuffer();
      this.mask = direct(Math.multiplyExact(tokens, Long.BYTES)).asLongBuffer();
      this.types = direct(Math.multiplyExact(tokens, Long.BYTES)).asLongBuffer();
      this.hidden =
          direct(Math.multiplyExact(Math.multiplyExact(tokens, dims), Float.BYTES)).asFloatBuffer();
    }

    private static ByteBuffer direct(int bytes) {
      return ByteBuffer.allocateDirect(bytes).order(ByteOrder.nativeOrder());
    }
  }

  @Override
  public void close() {
    NativeExit.GATE.enter();
    try {
      session.close();
    } catch (OrtException e) {
      throw new IllegalStateException(spec.name() + ": cannot close the session", e);
    } finally {
      NativeExit.GATE.leave();
    }
  }
}
