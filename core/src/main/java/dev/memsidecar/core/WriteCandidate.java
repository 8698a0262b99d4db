package dev.memsidecar.core;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.api.Ids;
import dev.memsidecar.api.MemoryRecord;
import java.time.Instant;

/**
 * One memory on its way through the {@link MemoryWriter}: the record it would become, the gate's
 * verdict on it, where it came from and where it may go.
 *
 * @param scope the caller's scope (audit and events)
 * @param origin the call that wrote it: a run (EndRun) or a Remember
 * @param record the record it becomes when stored: its id is the caller's ({@link Origin}), its
 *     gate score is the verdict's, its times are {@code time}
 * @param verdict the write gate's verdict on it
 * @param verbatim the client's own words (Remember), not text an extractor cut from a run: the
 *     low-value filter, which exists to drop extraction artefacts (echoes of the memory machinery,
 *     run instructions, greetings, fragments), does not see it, so a Remember of "alpha" or "hi" is
 *     stored; and its context is the client's own indexing text, so its neighbours are searched
 *     with the vector its store indexes it under (see {@link MemoryWriter})
 * @param destination the profile it may be written to, or why it may not be written
 * @param time when the write happens: the time of a merge, a supersession and the neighbour search
 *     (EndRun: the run's time, the same for each of its candidates)
 */
public record WriteCandidate(
    Scope scope,
    Origin origin,
    MemoryRecord record,
    WriteGate.Verdict verdict,
    boolean verbatim,
    Destination destination,
    Instant time) {
  public WriteCandidate {
    requireNonNull(scope, "scope is null");
    requireNonNull(origin, "origin is null");
    requireNonNull(record, "record is null");
    requireNonNull(verdict, "verdict is null");
    requireNonNull(destination, "destination is null");
    requireNonNull(time, "time is null");
  }

  /** The call a candidate came from; it names the source ref and tells retries apart. */
  public sealed interface Origin {
    /** The provenance a record gains from this call: kept in its source refs. */
    String sourceRef();

    /** The run the decision belongs to in the audit and the events; empty outside a run. */
    String runId();

    /**
     * A candidate of EndRun. Its record id derives from the run, so a record with that id is one an
     * earlier attempt of the same run stored without living to record its result.
     */
    record Run(String runId) implements Origin {
      public Run {
        Ids.require("run_id", runId);
      }

      @Override
      public String sourceRef() {
        return "run:" + runId;
      }
    }

    /**
     * A Remember. With a request id, the record id derives from the namespace and the request id,
     * and a retry of the request returns the first call's outcome and memory and changes nothing;
     * without one, the record id is random. A first call that stored (or superseded) is found by
     * that id; one that merged is found among the retry's neighbours, by the source ref {@code
     * remember:<request_id>} the record merged into carries: the retry must carry the same content,
     * and once that record is superseded or forgotten the retry is written anew.
     *
     * @param requestId the client's request id, or empty
     */
    record Remember(String requestId) implements Origin {
      public Remember {
        requireNonNull(requestId, "requestId is null");
      }

      @Override
      public String sourceRef() {
        return requestId.isEmpty() ? "remember" : "remember:" + requestId;
      }

      @Override
      public String runId() {
        return "";
      }
    }
  }

  /** Where a candidate may be written, or why it may not be written anywhere. */
  public sealed interface Destination {
    /** The provider named in the decision: the one that holds (or would hold) the record. */
    String provider();

    /** A profile this call may write to. */
    record Profile(AccessPolicy.Target target) implements Destination {
      public Profile {
        requireNonNull(target, "target is null");
      }

      @Override
      public String provider() {
        return target.provider();
      }
    }

    /**
     * Nothing may be written by this call at all ({@link AccessPolicy#recordWriteRefusal}): the
     * first reason a candidate is rejected, before any filter.
     */
    record WritesRefused(String provider, String reason) implements Destination {
      public WritesRefused {
        requireNonNull(provider, "provider is null");
        requireNonNull(reason, "reason is null");
      }
    }

    /**
     * No profile keeps such a memory for this scope: said when the low-value filter has nothing to
     * say.
     */
    record NoProfile(String reason) implements Destination {
      public NoProfile {
        requireNonNull(reason, "reason is null");
      }

      @Override
      public String provider() {
        return "";
      }
    }
  }
}
