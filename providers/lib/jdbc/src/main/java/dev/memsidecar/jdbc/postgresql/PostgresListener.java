package dev.memsidecar.jdbc.postgresql;

import static java.util.Objects.requireNonNull;

import java.lang.System.Logger.Level;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * Waits for {@code NOTIFY}s on one PostgreSQL channel and calls a {@link CatchUp} when one arrives,
 * when it (re)connects, and at least every {@code poll} in any case: the notification makes the
 * catch-up prompt, the poll makes it certain (a notification sent while the connection was down is
 * lost, and a catch-up must never depend on one).
 *
 * <p>One dedicated connection, not a pooled one (a pool would hand it to others and lose its {@code
 * LISTEN}), opened with {@code application_name} {@value #APPLICATION_NAME} so an operator can find
 * it in {@code pg_stat_activity}, with TCP keep-alive and a socket timeout; when idle it runs
 * {@code SELECT 1} every {@value #PING_SECONDS} s so that a connection that died silently is
 * noticed. A lost connection (a restart, {@code pg_terminate_backend}, a network failure) is opened
 * again after a backoff that doubles from {@code minBackoff} to {@code maxBackoff}; meanwhile the
 * catch-up keeps running every {@code poll} (its own work uses the store's pool, which may well be
 * up). The catch-up runs on the listener's one thread, never twice at once; an exception it throws
 * is logged and the next wake-up tries again.
 *
 * <p>Notifications whose payload is {@code ownPayload} are the caller's own (a store does not need
 * to hear about its own writes) and wake nothing. Thread-safe; {@link #close} stops the thread and
 * closes the connection.
 */
public final class PostgresListener implements AutoCloseable {
  /** The {@code application_name} of every listening connection. */
  public static final String APPLICATION_NAME = "memsidecar-listen";

  /** How often an idle listening connection is checked with {@code SELECT 1}. */
  static final int PING_SECONDS = 30;

  private static final System.Logger LOG = System.getLogger(PostgresListener.class.getName());

  /** Why the catch-up runs. */
  public enum Wake {
    /** The listening connection was opened (again): whatever happened meanwhile is to read. */
    CONNECTED,
    /** A notification arrived. */
    NOTIFIED,
    /** {@code poll} passed without one. */
    POLL
  }

  /** What the listener calls; see the class comment. */
  @FunctionalInterface
  public interface CatchUp {
    void run(Wake why) throws Exception;
  }

  /**
   * Where and how to listen.
   *
   * @param name what log lines and the thread call the listener; no secret
   * @param url a PostgreSQL JDBC URL without a password
   * @param user the user, or null
   * @param password the password, or null; never shown
   * @param channel the channel to {@code LISTEN} on (any text PostgreSQL takes as an identifier)
   * @param ownPayload the payload of notifications that wake nothing, or null
   * @param poll the longest time between two catch-ups
   * @param minBackoff the first wait before opening a lost connection again
   * @param maxBackoff the longest such wait
   */
  public record Settings(
      String name,
      String url,
      String user,
      String password,
      String channel,
      String ownPayload,
      Duration poll,
      Duration minBackoff,
      Duration maxBackoff) {
    public Settings {
      requireNonNull(name, "name is null");
      requireNonNull(url, "url is null");
      requireNonNull(channel, "channel is null");
      requireNonNull(poll, "poll is null");
      requireNonNull(minBackoff, "minBackoff is null");
      requireNonNull(maxBackoff, "maxBackoff is null");
      if (channel.isEmpty() || channel.length() > 63) {
        throw new IllegalArgumentException("channel must have 1..63 characters: " + channel);
      }
      if (poll.isNegative() || poll.isZero() || minBackoff.isNegative() || minBackoff.isZero()) {
        throw new IllegalArgumentException("poll and minBackoff must be positive");
      }
      if (maxBackoff.compareTo(minBackoff) < 0) {
        throw new IllegalArgumentException("maxBackoff must be at least minBackoff");
      }
    }

    @Override
    public String toString() {
      return "Settings[name=" + name + ", url=" + url + ", channel=" + channel + "]";
    }
  }

  private final Settings settings;
  private final CatchUp catchUp;
  private final PGSimpleDataSource source;
  private final Thread thread;
  private final Object lock = new Object();
  private Connection connection; // guarded by lock; used by the thread only
  private PGConnection listening; // the same connection, as the driver's; guarded by lock
  private volatile boolean closed;
  private volatile long connects;

  private PostgresListener(Settings settings, CatchUp catchUp) {
    this.settings = settings;
    this.catchUp = catchUp;
    this.source = new PGSimpleDataSource();
    source.setURL(settings.url());
    if (settings.user() != null) {
      source.setUser(settings.user());
    }
    if (settings.password() != null) {
      source.setPassword(settings.password());
    }
    source.setApplicationName(APPLICATION_NAME);
    source.setTcpKeepAlive(true);
    source.setSocketTimeout(PING_SECONDS);
    source.setConnectTimeout(10);
    this.thread = new Thread(this::run, "pg-listen-" + settings.name());
    thread.setDaemon(true);
  }

  /**
   * Starts listening in a thread of its own; the first catch-up ({@link Wake#CONNECTED}, or {@link
   * Wake#POLL} if the connection cannot be opened) runs at once.
   */
  public static PostgresListener start(Settings settings, CatchUp catchUp) {
    requireNonNull(settings, "settings is null");
    requireNonNull(catchUp, "catchUp is null");
    PostgresListener listener = new PostgresListener(settings, catchUp);
    listener.thread.start();
    return listener;
  }

  /** How many times the listening connection was opened; for tests and logs. */
  public long connects() {
    return connects;
  }

  private void run() {
    long pollNanos = settings.poll().toNanos();
    long backoff = settings.minBackoff().toNanos();
    long nextConnect = System.nanoTime();
    long lastPing = System.nanoTime();
    long nextCatchUp = System.nanoTime();
    boolean lostLogged = false;
    boolean catchUpFailing = false;
    while (!closed) {
      Wake why = null;
      PGConnection pg = current();
      long now = System.nanoTime();
      if (pg == null && now - nextConnect >= 0) {
        try {
          pg = connect();
          backoff = settings.minBackoff().toNanos();
          lastPing = System.nanoTime();
          why = Wake.CONNECTED;
          if (lostLogged) {
            LOG.log(Level.INFO, () -> settings.name() + ": listening again on " + settings.url());
            lostLogged = false;
          }
        } catch (SQLException | RuntimeException e) {
          if (closed) {
            return;
          }
          nextConnect = System.nanoTime() + backoff;
          long waited = backoff;
          backoff = Math.min(backoff * 2, settings.maxBackoff().toNanos());
          Level level = lostLogged ? Level.DEBUG : Level.WARNING;
          lostLogged = true;
          LOG.log(
              level,
              () ->
                  settings.name()
                      + ": cannot listen on "
                      + settings.url()
                      + " ("
                      + e.getMessage()
                      + "); trying again in "
                      + TimeUnit.NANOSECONDS.toMillis(waited)
                      + " ms, polling meanwhile");
        }
      }
      if (why == null) {
        long until = nextCatchUp;
        if (pg == null) {
          until = Math.min(until, nextConnect);
        }
        long waitMillis = Math.max(0, TimeUnit.NANOSECONDS.toMillis(until - System.nanoTime()));
        try {
          if (pg != null) {
            // 0 would mean "wait forever" to the driver.
            PGNotification[] got = pg.getNotifications((int) Math.max(1, waitMillis));
            if (relevant(got)) {
              why = Wake.NOTIFIED;
            } else if (System.nanoTime() - lastPing > TimeUnit.SECONDS.toNanos(PING_SECONDS)) {
              ping();
              lastPing = System.nanoTime();
            }
          } else if (waitMillis > 0) {
            Thread.sleep(waitMillis);
          }
        } catch (InterruptedException e) {
          if (closed) {
            return;
          }
        } catch (SQLException | RuntimeException e) {
          if (closed) {
            return;
          }
          drop();
          nextConnect = System.nanoTime() + backoff;
          LOG.log(
              Level.WARNING,
              () ->
                  settings.name()
                      + ": lost the listening connection to "
                      + settings.url()
                      + " ("
                      + e.getMessage()
                      + "); opening it again, polling meanwhile");
          lostLogged = true;
          continue;
        }
      }
      if (why == null && System.nanoTime() - nextCatchUp >= 0) {
        why = Wake.POLL;
      }
      if (why == null || closed) {
        continue;
      }
      nextCatchUp = System.nanoTime() + pollNanos;
      Wake reason = why;
      try {
        catchUp.run(reason);
        if (catchUpFailing) {
          catchUpFailing = false;
          LOG.log(Level.INFO, () -> settings.name() + ": caught up again");
        }
      } catch (Exception e) {
        if (closed) {
          return;
        }
        // Once per outage at WARNING: a database that is down fails every poll.
        Level level = catchUpFailing ? Level.DEBUG : Level.WARNING;
        catchUpFailing = true;
        LOG.log(
            level,
            () ->
                settings.name()
                    + ": catching up ("
                    + reason
                    + ") failed; trying again at the next notification or within "
                    + settings.poll().toMillis()
                    + " ms",
            e);
      }
    }
  }

  private boolean relevant(PGNotification[] got) {
    if (got == null) {
      return false;
    }
    for (PGNotification n : got) {
      if (settings.ownPayload() == null || !settings.ownPayload().equals(n.getParameter())) {
        return true;
      }
    }
    return false;
  }

  private PGConnection current() {
    synchronized (lock) {
      return listening;
    }
  }

  private PGConnection connect() throws SQLException {
    Connection c = source.getConnection();
    try {
      try (Statement st = c.createStatement()) {
        st.execute("LISTEN " + quote(settings.channel()));
      }
      synchronized (lock) {
        if (closed) {
          throw new SQLException(settings.name() + " is closed");
        }
        connection = c;
        listening = c.unwrap(PGConnection.class);
      }
      connects++;
      return listening;
    } catch (SQLException | RuntimeException e) {
      try {
        c.close();
      } catch (SQLException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    }
  }

  private void ping() throws SQLException {
    Connection c;
    synchronized (lock) {
      c = connection;
    }
    try (Statement st = c.createStatement()) {
      st.execute("SELECT 1");
    }
  }

  private void drop() {
    Connection c;
    synchronized (lock) {
      c = connection;
      connection = null;
      listening = null;
    }
    if (c != null) {
      try {
        c.close();
      } catch (SQLException e) {
        LOG.log(Level.DEBUG, () -> settings.name() + ": closing a lost connection", e);
      }
    }
  }

  /** {@code name} as a quoted identifier. */
  static String quote(String name) {
    return '"' + name.replace("\"", "\"\"") + '"';
  }

  /** Stops the thread and closes the connection (abruptly: a wait on it ends at once). */
  @Override
  public void close() {
    Connection c;
    synchronized (lock) {
      if (closed) {
        return;
      }
      closed = true;
      c = connection;
      connection = null;
      listening = null;
    }
    if (c != null) {
      try {
        c.abort(Runnable::run);
      } catch (SQLException e) {
        LOG.log(Level.DEBUG, () -> settings.name() + ": aborting its connection", e);
      }
    }
    thread.interrupt();
    try {
      thread.join(10_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
