package dev.memsidecar.core.sessions;

/** Who wrote a session message. */
public enum MessageRole {
  USER,
  ASSISTANT,
  TOOL,
  SYSTEM,
  /** A runtime event (run started, acceptance, ...), usually hidden from the model's context. */
  EVENT
}
