package dev.memsidecar.api;

/** How long a memory is meant to hold. SHORT_TERM records carry an expire time. */
public enum Validity {
  LONG_TERM,
  SHORT_TERM
}
