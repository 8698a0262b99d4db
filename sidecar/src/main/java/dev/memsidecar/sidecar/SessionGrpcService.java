package dev.memsidecar.sidecar;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.core.sessions.SessionInfo;
import dev.memsidecar.core.sessions.SessionMessage;
import dev.memsidecar.core.sessions.SessionService;
import dev.memsidecar.core.sessions.SessionStore;
import dev.memsidecar.proto.v1.AppendMessagesRequest;
import dev.memsidecar.proto.v1.AppendMessagesResponse;
import dev.memsidecar.proto.v1.DeleteSessionRequest;
import dev.memsidecar.proto.v1.DeleteSessionResponse;
import dev.memsidecar.proto.v1.GetHistoryRequest;
import dev.memsidecar.proto.v1.GetHistoryResponse;
import dev.memsidecar.proto.v1.ListSessionsRequest;
import dev.memsidecar.proto.v1.ListSessionsResponse;
import dev.memsidecar.proto.v1.SearchSessionsRequest;
import dev.memsidecar.proto.v1.SearchSessionsResponse;
import dev.memsidecar.proto.v1.SessionServiceGrpc;
import io.grpc.stub.StreamObserver;
import java.util.ArrayList;
import java.util.List;

/** memsidecar.v1.SessionService: proto in, {@link SessionService} call, proto out. */
final class SessionGrpcService extends SessionServiceGrpc.SessionServiceImplBase {
  private final SessionService sessions;

  SessionGrpcService(SessionService sessions) {
    this.sessions = requireNonNull(sessions, "sessions is null");
  }

  @Override
  public void appendMessages(
      AppendMessagesRequest req, StreamObserver<AppendMessagesResponse> out) {
    List<SessionMessage> messages = new ArrayList<>(req.getMessagesCount());
    for (int i = 0; i < req.getMessagesCount(); i++) {
      messages.add(SessionMapping.message(req.getMessages(i), "messages[" + i + "]"));
    }
    List<SessionMessage> stored =
        sessions.append(
            ProtoMapping.scope(req.getScope()),
            messages,
            ProtoMapping.options(req.getMetadataMap()));
    AppendMessagesResponse.Builder b = AppendMessagesResponse.newBuilder();
    stored.forEach(m -> b.addMessages(SessionMapping.message(m)));
    out.onNext(b.build());
    out.onCompleted();
  }

  @Override
  public void getHistory(GetHistoryRequest req, StreamObserver<GetHistoryResponse> out) {
    SessionService.Page<SessionMessage> page =
        sessions.history(ProtoMapping.scope(req.getScope()), req.getPageSize(), req.getPageToken());
    GetHistoryResponse.Builder b =
        GetHistoryResponse.newBuilder().setNextPageToken(page.nextPageToken());
    page.items().forEach(m -> b.addMessages(SessionMapping.message(m)));
    out.onNext(b.build());
    out.onCompleted();
  }

  @Override
  public void searchSessions(
      SearchSessionsRequest req, StreamObserver<SearchSessionsResponse> out) {
    SessionStore.Filter filter =
        new SessionStore.Filter(
            req.getSessionId(),
            req.hasStartTime() ? SessionMapping.instant(req.getStartTime(), "start_time") : null,
            req.hasEndTime() ? SessionMapping.instant(req.getEndTime(), "end_time") : null,
            SessionMapping.roles(req.getRolesList()));
    SearchSessionsResponse.Builder b = SearchSessionsResponse.newBuilder();
    sessions
        .search(
            ProtoMapping.scope(req.getScope()),
            new SessionService.Query(req.getQuery(), filter, req.getTopK()))
        .forEach(h -> b.addHits(SessionMapping.hit(h)));
    out.onNext(b.build());
    out.onCompleted();
  }

  @Override
  public void listSessions(ListSessionsRequest req, StreamObserver<ListSessionsResponse> out) {
    SessionService.Page<SessionInfo> page =
        sessions.list(ProtoMapping.scope(req.getScope()), req.getPageSize(), req.getPageToken());
    ListSessionsResponse.Builder b =
        ListSessionsResponse.newBuilder().setNextPageToken(page.nextPageToken());
    page.items().forEach(s -> b.addSessions(SessionMapping.info(s)));
    out.onNext(b.build());
    out.onCompleted();
  }

  @Override
  public void deleteSession(DeleteSessionRequest req, StreamObserver<DeleteSessionResponse> out) {
    long deleted =
        sessions.delete(
            ProtoMapping.scope(req.getScope()), ProtoMapping.options(req.getMetadataMap()));
    out.onNext(DeleteSessionResponse.newBuilder().setMessagesDeleted(deleted).build());
    out.onCompleted();
  }
}
