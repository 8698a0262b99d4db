package dev.memsidecar.sidecar.cli;

import java.io.PrintWriter;

/**
 * Progress of a long command on stderr: on a terminal a bar redrawn in place ({@code importing
 * [#####-----] 512/1024 50%}), elsewhere (a log, a pipe) a line at each tenth of the way, so logs
 * stay short.
 */
final class ProgressBar {
  private static final int WIDTH = 30;

  private final PrintWriter err;
  private final String phase;
  private final long total;
  private final boolean terminal = System.console() != null;
  private long lastTenth = -1;

  /**
   * @param total how many steps there are, or -1 when unknown (no bar; a count at the end)
   */
  ProgressBar(PrintWriter err, String phase, long total) {
    this.err = err;
    this.phase = phase;
    this.total = total;
  }

  void set(long done) {
    if (total <= 0) {
      return;
    }
    long tenth = done * 10 / total;
    if (terminal) {
      int filled = (int) (WIDTH * done / total);
      err.print(
          "\r%s [%s%s] %d/%d %d%%"
              .formatted(
                  phase,
                  "#".repeat(filled),
                  "-".repeat(WIDTH - filled),
                  done,
                  total,
                  done * 100 / total));
      err.flush();
    } else if (tenth > lastTenth) {
      lastTenth = tenth;
      err.println("%s: %d/%d (%d%%)".formatted(phase, done, total, done * 100 / total));
      err.flush();
    }
  }

  void done(long done) {
    set(total > 0 ? total : done);
    if (terminal && total > 0) {
      err.println();
    }
    err.flush();
  }
}
