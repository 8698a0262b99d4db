package dev.memsidecar.jdbc;

/**
 * What a {@link Dialect} runs beside an open database to keep it in shape ({@link
 * Dialect#startHousekeeping}). {@link #close} stops it; the database closes after.
 */
public interface Housekeeping extends AutoCloseable {

  /** A housekeeping that does nothing. */
  Housekeeping NONE = () -> {};

  /** Stops the housekeeping (waits for a pass under way). Idempotent; throws nothing. */
  @Override
  void close();
}
