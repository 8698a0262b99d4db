package dev.memsidecar.provider.extractor;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.api.Extractor;
import dev.memsidecar.api.ExtractorProvider;
import dev.memsidecar.api.MemoryException;
import dev.memsidecar.api.Settings;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.Locale;
import java.util.Set;
import java.util.function.Function;

/**
 * The {@code openai} extractor: asks any OpenAI-compatible {@code /v1/chat/completions} endpoint
 * (OpenAI, Ollama, vLLM, llama.cpp server, ...) for the run's memories. See {@link OpenAiExtractor}
 * for the prompt, the parsing and the failure behaviour.
 *
 * <p>Settings ({@code memory.extractor.settings}):
 *
 * <ul>
 *   <li>{@code baseUrl} (required): an http(s) URL such as {@code http://localhost:11434/v1}. The
 *       endpoint is {@code <baseUrl>/chat/completions} when the URL ends in {@code /v1}, the URL
 *       itself when it already ends in {@code /chat/completions}, else {@code
 *       <baseUrl>/v1/chat/completions}. Messages show it, so it must hold no credentials;
 *   <li>{@code model} (required): the model name the endpoint knows, e.g. {@code qwen2.5:7b};
 *   <li>{@code apiKeyEnv}: the name of the environment variable holding the API key, sent as {@code
 *       Authorization: Bearer <key>}; without it no key is sent (local servers). The key itself is
 *       never a setting, and never logged or put in a message; a variable that is unset or empty
 *       fails {@link #open};
 *   <li>{@code timeout}: how long one HTTP request may take, {@code 100ms..10m}, default {@code
 *       30s};
 *   <li>{@code temperature}: {@code 0..2}, default {@code 0}.
 * </ul>
 *
 * Any other key fails {@link #open} with INVALID_ARGUMENT naming it. Stateless and thread-safe.
 */
public final class OpenAiExtractorProvider implements ExtractorProvider {
  public static final String NAME = "openai";
  public static final String BASE_URL = "baseUrl";
  public static final String MODEL = "model";
  public static final String API_KEY_ENV = "apiKeyEnv";
  public static final String TIMEOUT = "timeout";
  public static final String TEMPERATURE = "temperature";
  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(30);

  private static final Set<String> KNOWN =
      Set.of(BASE_URL, MODEL, API_KEY_ENV, TIMEOUT, TEMPERATURE);

  private final Function<String, String> environment;

  /** For {@link java.util.ServiceLoader}: the key comes from the process environment. */
  public OpenAiExtractorProvider() {
    this(System::getenv);
  }

  /** For tests: {@code environment} maps a variable name to its value, or null. */
  OpenAiExtractorProvider(Function<String, String> environment) {
    this.environment = requireNonNull(environment, "environment is null");
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public Extractor open(Settings settings) {
    requireNonNull(settings, "settings is null");
    settings.requireOnly(KNOWN);
    URI endpoint = endpoint(settings);
    String model = settings.string(MODEL, "").strip();
    if (model.isEmpty()) {
      throw MemoryException.invalidArgument(
          "spec.settings." + MODEL, settings.owner() + ": " + MODEL + " is required");
    }
    String apiKey = null;
    String keyEnv = settings.string(API_KEY_ENV, "").strip();
    if (!keyEnv.isEmpty()) {
      apiKey = environment.apply(keyEnv);
      if (apiKey == null || apiKey.isBlank()) {
        throw MemoryException.invalidArgument(
            "spec.settings." + API_KEY_ENV,
            settings.owner()
                + ": the environment variable '"
                + keyEnv
                + "' named by "
                + API_KEY_ENV
                + " is not set");
      }
      apiKey = apiKey.strip();
    }
    Duration timeout =
        settings.duration(TIMEOUT, DEFAULT_TIMEOUT, Duration.ofMillis(100), Duration.ofMinutes(10));
    double temperature = settings.decimal(TEMPERATURE, 0.0, 0.0, 2.0);
    return new OpenAiExtractor(endpoint, model, apiKey, timeout, temperature);
  }

  private static URI endpoint(Settings settings) {
    String raw = settings.string(BASE_URL, "").strip();
    String field = "spec.settings." + BASE_URL;
    if (raw.isEmpty()) {
      throw MemoryException.invalidArgument(
          field, settings.owner() + ": " + BASE_URL + " is required");
    }
    URI uri;
    try {
      uri = new URI(raw);
    } catch (URISyntaxException e) {
      throw MemoryException.invalidArgument(
          field, settings.owner() + ": " + BASE_URL + " is not a URL: " + raw);
    }
    String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
    if (!scheme.equals("http") && !scheme.equals("https") || uri.getHost() == null) {
      throw MemoryException.invalidArgument(
          field, settings.owner() + ": " + BASE_URL + " must be an http(s) URL: " + raw);
    }
    if (uri.getUserInfo() != null) {
      throw MemoryException.invalidArgument(
          field,
          settings.owner() + ": " + BASE_URL + " must not hold credentials; use " + API_KEY_ENV);
    }
    String path = uri.getPath() == null ? "" : uri.getPath().replaceAll("/+$", "");
    if (!path.endsWith("/chat/completions")) {
      path = path.endsWith("/v1") ? path + "/chat/completions" : path + "/v1/chat/completions";
    }
    try {
      return new URI(scheme, null, uri.getHost(), uri.getPort(), path, uri.getQuery(), null);
    } catch (URISyntaxException e) {
      throw MemoryException.invalidArgument(
          field, settings.owner() + ": " + BASE_URL + " is not a URL: " + raw);
    }
  }
}
