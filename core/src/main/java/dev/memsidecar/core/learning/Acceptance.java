package dev.memsidecar.core.learning;

/** A user's verdict on a task (RecordAcceptance), and the state it leaves the task in. */
public enum Acceptance {
  /** Done: the final run is the one the user accepted. */
  ACCEPT(TaskState.ACCEPTED),
  /** Not yet: the user asked for changes. */
  REVISE(TaskState.REVISE),
  /** Given up. */
  ABANDON(TaskState.ABANDONED);

  private final TaskState state;

  Acceptance(TaskState state) {
    this.state = state;
  }

  /** The state this verdict leaves a task in. */
  public TaskState state() {
    return state;
  }
}
