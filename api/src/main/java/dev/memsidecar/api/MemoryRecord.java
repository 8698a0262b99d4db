package dev.memsidecar.api;

import static java.util.Objects.requireNonNull;

import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * One memory as a store keeps it. Immutable; change one with {@link #toBuilder()}.
 *
 * @param id the record id, unique within its namespace ({@link Ids#ID})
 * @param namespace where it lives
 * @param profile the memory profile id that wrote it, e.g. {@code workspace}
 * @param kind semantic, episodic or procedural
 * @param content the memory itself, as the agent will read it
 * @param summary a short form of the content; may be empty
 * @param context text around the memory (neighbouring turns): stores may index and rank with it,
 *     but it is never shown as the memory's content; may be empty
 * @param confidence 0..1
 * @param tags labels, in the order given, without duplicates
 * @param sensitivity free-form label such as {@code pii}; may be empty
 * @param metadata caller's key/value pairs
 * @param createTime when it was first stored
 * @param updateTime when it last changed
 * @param gateScore the write-gate score 0..10 that admitted it
 * @param status only {@link MemoryStatus#ACTIVE} records are searched
 * @param sourceRefs provenance: run ids, {@code remember:<request_id>}, ...
 * @param validity long- or short-term
 * @param expireTime when a short-term memory stops being recalled, or {@code null}
 */
public record MemoryRecord(
    String id,
    Namespace namespace,
    String profile,
    MemoryKind kind,
    String content,
    String summary,
    String context,
    float confidence,
    List<String> tags,
    String sensitivity,
    Map<String, String> metadata,
    Instant createTime,
    Instant updateTime,
    float gateScore,
    MemoryStatus status,
    List<String> sourceRefs,
    Validity validity,
    Instant expireTime) {

  /** The largest content the engine stores, UTF-8 bytes. */
  public static final int MAX_CONTENT_BYTES = 32 * 1024;

  /** The largest context the engine stores, UTF-8 bytes. */
  public static final int MAX_CONTEXT_BYTES = 64 * 1024;

  /** The most tags a record carries. */
  public static final int MAX_TAGS = 32;

  /** The longest tag. */
  public static final int MAX_TAG_CHARS = 64;

  /** The most metadata entries a record carries. */
  public static final int MAX_METADATA_ENTRIES = 32;

  /** The longest metadata key. */
  public static final int MAX_METADATA_KEY_CHARS = 64;

  /** The longest metadata value. */
  public static final int MAX_METADATA_VALUE_CHARS = 1024;

  public MemoryRecord {
    Ids.require("id", id);
    requireNonNull(namespace, "namespace is null");
    requireNonNull(profile, "profile is null");
    requireNonNull(kind, "kind is null");
    requireNonNull(content, "content is null");
    summary = summary == null ? "" : summary;
    context = context == null ? "" : context;
    tags = tags == null ? List.of() : List.copyOf(tags);
    sensitivity = sensitivity == null ? "" : sensitivity;
    metadata = metadata == null ? Map.of() : Map.copyOf(metadata);
    requireNonNull(createTime, "createTime is null");
    requireNonNull(updateTime, "updateTime is null");
    requireNonNull(status, "status is null");
    sourceRefs = sourceRefs == null ? List.of() : List.copyOf(sourceRefs);
    requireNonNull(validity, "validity is null");
  }

  /** Whether search should still find it at {@code now}: active and not expired. */
  public boolean isRecallable(Instant now) {
    return status == MemoryStatus.ACTIVE && (expireTime == null || expireTime.isAfter(now));
  }

  /** The text stores embed and index for it: content, then context. */
  public String indexedText() {
    return content + "\n" + context;
  }

  public Builder toBuilder() {
    return new Builder(this);
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Builds a {@link MemoryRecord}; defaults: semantic, active, long-term, confidence 1. */
  public static final class Builder {
    private String id;
    private Namespace namespace;
    private String profile;
    private MemoryKind kind = MemoryKind.SEMANTIC;
    private String content;
    private String summary = "";
    private String context = "";
    private float confidence = 1.0f;
    private List<String> tags = List.of();
    private String sensitivity = "";
    private Map<String, String> metadata = Map.of();
    private Instant createTime;
    private Instant updateTime;
    private float gateScore;
    private MemoryStatus status = MemoryStatus.ACTIVE;
    private List<String> sourceRefs = List.of();
    private Validity validity = Validity.LONG_TERM;
    private Instant expireTime;

    private Builder() {}

    private Builder(MemoryRecord r) {
      id = r.id;
      namespace = r.namespace;
      profile = r.profile;
      kind = r.kind;
      content = r.content;
      summary = r.summary;
      context = r.context;
      confidence = r.confidence;
      tags = r.tags;
      sensitivity = r.sensitivity;
      metadata = r.metadata;
      createTime = r.createTime;
      updateTime = r.updateTime;
      gateScore = r.gateScore;
      status = r.status;
      sourceRefs = r.sourceRefs;
      validity = r.validity;
      expireTime = r.expireTime;
    }

    public Builder id(String v) {
      id = v;
      return this;
    }

    public Builder namespace(Namespace v) {
      namespace = v;
      return this;
    }

    public Builder profile(String v) {
      profile = v;
      return this;
    }

    public Builder kind(MemoryKind v) {
      kind = v;
      return this;
    }

    public Builder content(String v) {
      content = v;
      return this;
    }

    public Builder summary(String v) {
      summary = v;
      return this;
    }

    public Builder context(String v) {
      context = v;
      return this;
    }

    public Builder confidence(float v) {
      confidence = v;
      return this;
    }

    public Builder tags(List<String> v) {
      tags = v;
      return this;
    }

    public Builder sensitivity(String v) {
      sensitivity = v;
      return this;
    }

    public Builder metadata(Map<String, String> v) {
      metadata = v;
      return this;
    }

    public Builder createTime(Instant v) {
      createTime = v;
      return this;
    }

    public Builder updateTime(Instant v) {
      updateTime = v;
      return this;
    }

    /** Sets both create and update time. */
    public Builder times(Instant v) {
      createTime = v;
      updateTime = v;
      return this;
    }

    public Builder gateScore(float v) {
      gateScore = v;
      return this;
    }

    public Builder status(MemoryStatus v) {
      status = v;
      return this;
    }

    public Builder sourceRefs(List<String> v) {
      sourceRefs = v;
      return this;
    }

    public Builder validity(Validity v) {
      validity = v;
      return this;
    }

    public Builder expireTime(Instant v) {
      expireTime = v;
      return this;
    }

    public MemoryRecord build() {
      return new MemoryRecord(
          id,
          namespace,
          profile,
          kind,
          content,
          summary,
          context,
          confidence,
          tags,
          sensitivity,
          metadata,
          createTime,
          updateTime,
          gateScore,
          status,
          sourceRefs,
          validity,
          expireTime);
    }
  }
}
