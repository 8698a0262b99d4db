package dev.memsidecar.sidecar;

import dev.memsidecar.api.MemoryException;
import dev.memsidecar.api.MemoryRecord;
import dev.memsidecar.api.MemoryStatus;
import dev.memsidecar.api.Namespace;
import dev.memsidecar.core.ScopeTransfer;
import dev.memsidecar.core.StoredMemory;
import dev.memsidecar.core.toolrules.ToolRule;
import dev.memsidecar.proto.v1.ExportedMemory;
import dev.memsidecar.proto.v1.Memory;
import dev.memsidecar.proto.v1.MemoryFile;
import dev.memsidecar.proto.v1.ScopeItem;
import java.time.Instant;
import java.util.List;

/** The items of AdminService.ExportScope and ImportScope to and from {@link ScopeTransfer}. */
final class TransferMapping {
  private TransferMapping() {}

  /** Where an exported record's namespace stood before the import resolves its own. */
  private static final Namespace UNPLACED = Namespace.of("import");

  static ScopeItem item(ScopeTransfer.Item item) {
    ScopeItem.Builder b = ScopeItem.newBuilder();
    switch (item) {
      case ScopeTransfer.Record r ->
          b.setMemory(
              ExportedMemory.newBuilder()
                  .setMemory(
                      ProtoMapping.memory(new StoredMemory(r.record(), "")).toBuilder()
                          .clearProvider())
                  .setContext(r.record().context()));
      case ScopeTransfer.Rule r -> b.setToolRule(ProtoMapping.toolRule(r.rule()));
      case ScopeTransfer.Said s -> b.setMessage(SessionMapping.message(s.message()));
      case ScopeTransfer.File f ->
          b.setFile(MemoryFile.newBuilder().setPath(f.path()).setContent(f.content()));
    }
    return b.build();
  }

  /** An item a client sent back; {@code field} ("items[3]") names it in errors. */
  static ScopeTransfer.Item item(ScopeItem item, String field) {
    return switch (item.getItemCase()) {
      case MEMORY -> new ScopeTransfer.Record(record(item.getMemory(), field + ".memory"));
      case TOOL_RULE -> new ScopeTransfer.Rule(rule(item.getToolRule(), field + ".tool_rule"));
      case MESSAGE -> {
        dev.memsidecar.proto.v1.Message m = item.getMessage();
        String f = field + ".message";
        if (!m.hasTime()) {
          throw MemoryException.invalidArgument(f + ".time", f + ".time is required");
        }
        yield new ScopeTransfer.Said(
            SessionMapping.message(m, f)
                .stored(m.getId(), m.getSessionId(), 0, SessionMapping.instant(m.getTime(), f)));
      }
      case FILE -> new ScopeTransfer.File(item.getFile().getPath(), item.getFile().getContent());
      case ITEM_NOT_SET -> throw MemoryException.invalidArgument(field, field + " is empty");
    };
  }

  private static MemoryRecord record(ExportedMemory e, String field) {
    Memory m = e.getMemory();
    if (!m.hasCreateTime() || !m.hasUpdateTime()) {
      throw MemoryException.invalidArgument(
          field + ".create_time", field + " needs its create_time and update_time");
    }
    dev.memsidecar.api.MemoryKind kind = ProtoMapping.kind(m.getKind(), field + ".kind");
    MemoryRecord.Builder b =
        MemoryRecord.builder()
            .id(m.getId())
            .namespace(UNPLACED)
            .profile(m.getProfile())
            .kind(kind == null ? dev.memsidecar.api.MemoryKind.SEMANTIC : kind)
            .content(m.getContent())
            .summary(m.getSummary())
            .context(e.getContext())
            .confidence(m.getConfidence())
            .tags(m.getTagsList())
            .sensitivity(m.getSensitivity())
            .metadata(m.getMetadataMap())
            .createTime(SessionMapping.instant(m.getCreateTime(), field + ".create_time"))
            .updateTime(SessionMapping.instant(m.getUpdateTime(), field + ".update_time"))
            .gateScore(m.getGateScore())
            .status(status(m, field))
            .sourceRefs(m.getSourceRefsList());
    dev.memsidecar.api.Validity validity = ProtoMapping.validity(m.getValidity());
    if (validity != null) {
      b.validity(validity);
    }
    if (m.hasExpireTime()) {
      b.expireTime(SessionMapping.instant(m.getExpireTime(), field + ".expire_time"));
    }
    return b.build();
  }

  private static MemoryStatus status(Memory m, String field) {
    return switch (m.getStatus()) {
      case MEMORY_STATUS_ACTIVE, MEMORY_STATUS_UNSPECIFIED -> MemoryStatus.ACTIVE;
      case MEMORY_STATUS_SUPERSEDED -> MemoryStatus.SUPERSEDED;
      case MEMORY_STATUS_FORGOTTEN -> MemoryStatus.FORGOTTEN;
      case UNRECOGNIZED ->
          throw MemoryException.invalidArgument(field + ".status", field + ".status is not known");
    };
  }

  private static ToolRule rule(dev.memsidecar.proto.v1.ToolRule r, String field) {
    Instant created =
        r.hasCreateTime()
            ? SessionMapping.instant(r.getCreateTime(), field + ".create_time")
            : Instant.EPOCH;
    Instant updated =
        r.hasUpdateTime()
            ? SessionMapping.instant(r.getUpdateTime(), field + ".update_time")
            : created;
    return new ToolRule(
        r.getId(),
        r.getToolName(),
        r.getRule(),
        ProtoMapping.priority(r.getPriority()),
        ProtoMapping.source(r.getSource()),
        r.getTagsList(),
        created,
        updated,
        List.of());
  }
}
