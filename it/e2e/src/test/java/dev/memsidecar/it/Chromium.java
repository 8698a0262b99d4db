package dev.memsidecar.it;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * Debian's headless Chromium ({@code /usr/bin/chromium}), driven through Debian's chromedriver
 * ({@code /usr/bin/chromedriver}, package chromium-driver) over the W3C WebDriver protocol: open a
 * page, wait until its text says what a user would see, take a screenshot. Neither is optional: if
 * one is missing the test fails and says how to install them. One browser with a fresh profile per
 * instance; not thread-safe.
 */
final class Chromium implements AutoCloseable {
  static final Path BINARY = Path.of("/usr/bin/chromium");
  static final Path DRIVER = Path.of("/usr/bin/chromedriver");

  /** How long a page may take to show what a test waits for. */
  static final Duration PAGE_LIMIT = Duration.ofSeconds(30);

  private static final List<String> ARGS =
      List.of(
          "--headless",
          "--no-sandbox",
          "--disable-gpu",
          "--disable-quic",
          "--no-first-run",
          "--disable-background-networking",
          "--disable-component-update",
          "--disable-sync",
          "--window-size=1280,900");

  private final Process driver;
  private final Path profile;
  private final HttpClient http = HttpClient.newHttpClient();
  private final String base;
  private final String session;

  private Chromium(Process driver, Path profile, String base) {
    this.driver = driver;
    this.profile = profile;
    this.base = base;
    JsonObject options = new JsonObject();
    options.addProperty("binary", BINARY.toString());
    JsonArray args = new JsonArray();
    ARGS.forEach(args::add);
    args.add("--user-data-dir=" + profile);
    options.add("args", args);
    JsonObject always = new JsonObject();
    always.add("goog:chromeOptions", options);
    JsonObject capabilities = new JsonObject();
    capabilities.add("alwaysMatch", always);
    JsonObject body = new JsonObject();
    body.add("capabilities", capabilities);
    this.session = post("/session", body).getAsJsonObject().get("sessionId").getAsString();
  }

  /** Starts chromedriver on a free port and a browser with a fresh profile. */
  static Chromium start() {
    for (Path p : List.of(BINARY, DRIVER)) {
      if (!Files.isExecutable(p)) {
        throw new AssertionError(
            p
                + " is missing: the inspector's end-to-end test needs Debian's Chromium; install it"
                + " with `apt-get install -y chromium chromium-driver`");
      }
    }
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Path profile;
    Process driver;
    try {
      profile = Files.createTempDirectory("memsidecar-chromium-");
      driver =
          new ProcessBuilder(DRIVER.toString(), "--port=" + port)
              .redirectErrorStream(true)
              .redirectOutput(
                  profile.resolveSibling(profile.getFileName() + ".driver.log").toFile())
              .start();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    String base = "http://127.0.0.1:" + port;
    HttpClient client = HttpClient.newHttpClient();
    long deadline = System.nanoTime() + PAGE_LIMIT.toNanos();
    while (true) {
      try {
        HttpResponse<String> status =
            client.send(
                HttpRequest.newBuilder(URI.create(base + "/status")).build(),
                HttpResponse.BodyHandlers.ofString());
        if (status.body().contains("\"ready\":true")) {
          break;
        }
      } catch (IOException e) {
        // not listening yet
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        driver.destroyForcibly();
        throw new AssertionError("interrupted", e);
      }
      if (System.nanoTime() > deadline || !driver.isAlive()) {
        driver.destroyForcibly();
        throw new AssertionError("chromedriver did not get ready on port " + port);
      }
      sleep(100);
    }
    try {
      return new Chromium(driver, profile, base);
    } catch (RuntimeException | Error e) {
      driver.destroyForcibly();
      throw e;
    }
  }

  /** Opens {@code url} in the browser's tab. */
  void open(String url) {
    JsonObject body = new JsonObject();
    body.addProperty("url", url);
    post("/session/" + session + "/url", body);
  }

  /** Runs {@code script} (a function body that may {@code return}) in the page. */
  JsonElement script(String script) {
    JsonObject body = new JsonObject();
    body.addProperty("script", script);
    body.add("args", new JsonArray());
    return post("/session/" + session + "/execute/sync", body);
  }

  /** The page's visible text. */
  String text() {
    JsonElement value = script("return document.body.innerText;");
    return value.isJsonNull() ? "" : value.getAsString();
  }

  /** The page's DOM as HTML. */
  String html() {
    return script("return document.documentElement.outerHTML;").getAsString();
  }

  /**
   * Waits until the page has finished loading its data (the inspector marks {@code main} ready) and
   * its text passes {@code test}; returns that text, or fails with the text it last saw.
   */
  String waitForText(String what, Predicate<String> test) {
    long deadline = System.nanoTime() + PAGE_LIMIT.toNanos();
    String text = "";
    while (true) {
      JsonElement ready =
          script(
              "const m = document.getElementById('main');"
                  + " return m !== null && m.dataset.state === 'ready';");
      text = text();
      if (ready.getAsBoolean() && test.test(text)) {
        return text;
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError(
            "the page never showed " + what + " within " + PAGE_LIMIT + "; it shows:\n" + text);
      }
      sleep(100);
    }
  }

  /** A PNG of the window. */
  byte[] screenshot() {
    JsonElement value = get("/session/" + session + "/screenshot");
    return Base64.getDecoder().decode(value.getAsString());
  }

  private JsonElement post(String path, JsonObject body) {
    return call(
        HttpRequest.newBuilder(URI.create(base + path))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body.toString()))
            .build());
  }

  private JsonElement get(String path) {
    return call(HttpRequest.newBuilder(URI.create(base + path)).build());
  }

  private JsonElement call(HttpRequest request) {
    HttpResponse<String> response;
    try {
      response =
          http.send(
              HttpRequest.newBuilder(request, (k, v) -> true).timeout(PAGE_LIMIT).build(),
              HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    }
    JsonElement json = JsonParser.parseString(response.body());
    if (response.statusCode() != 200) {
      throw new AssertionError(
          "WebDriver " + request.method() + " " + request.uri() + ": " + response.body());
    }
    return json.getAsJsonObject().get("value");
  }

  private static void deleteQuietly(Path dir) {
    try (var paths = Files.walk(dir)) {
      paths
          .sorted(java.util.Comparator.reverseOrder())
          .forEach(
              p -> {
                try {
                  Files.deleteIfExists(p);
                } catch (IOException e) {
                  // a file the browser still writes: left in the temp folder
                }
              });
    } catch (IOException | UncheckedIOException e) {
      // left in the temp folder
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    }
  }

  @Override
  public void close() {
    try {
      http.send(
          HttpRequest.newBuilder(URI.create(base + "/session/" + session)).DELETE().build(),
          HttpResponse.BodyHandlers.discarding());
    } catch (IOException e) {
      // the driver is going anyway
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      driver.destroy();
      try {
        if (!driver.waitFor(10, TimeUnit.SECONDS)) {
          driver.destroyForcibly();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        driver.destroyForcibly();
      }
      deleteQuietly(profile);
    }
  }
}
