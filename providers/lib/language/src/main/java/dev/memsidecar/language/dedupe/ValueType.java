package dev.memsidecar.language.dedupe;

/**
 * The types of value a memory can hold for its subject: a new value of one type replaces the old
 * ("The deploy day is now Thursday" after "... Tuesday"; see {@link MemoryComparison}).
 */
public enum ValueType {
  /** A canonical token ({@link CanonicalTokens}): a command, an identifier, a URL, an address. */
  TOKEN,
  /** A date: 2025-03-01, 3/1, March 1st, 3月1日. */
  DATE,
  /** A clock time: 10:00, 3pm, noon, 下午3点. */
  TIME,
  /** A day of the week: Tuesday(s), 周二, 星期二. */
  DAY,
  /** A number or version: 8080, v2.1, 30%. */
  NUMBER,
  /** A capitalised name or place: Berlin (only with a change marker). */
  NAME
}
