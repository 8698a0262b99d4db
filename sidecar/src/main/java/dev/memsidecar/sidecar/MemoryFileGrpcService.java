package dev.memsidecar.sidecar;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.core.MemoryFiles;
import dev.memsidecar.proto.v1.EditMemoryFileRequest;
import dev.memsidecar.proto.v1.EditMemoryFileResponse;
import dev.memsidecar.proto.v1.ListMemoryFilesRequest;
import dev.memsidecar.proto.v1.ListMemoryFilesResponse;
import dev.memsidecar.proto.v1.MemoryFile;
import dev.memsidecar.proto.v1.MemoryFileServiceGrpc;
import dev.memsidecar.proto.v1.ReadMemoryFileRequest;
import dev.memsidecar.proto.v1.ReadMemoryFileResponse;
import dev.memsidecar.proto.v1.WriteMemoryFileRequest;
import dev.memsidecar.proto.v1.WriteMemoryFileResponse;
import io.grpc.stub.StreamObserver;

/** memsidecar.v1.MemoryFileService: the /memories/*.md files, through {@link MemoryFiles}. */
final class MemoryFileGrpcService extends MemoryFileServiceGrpc.MemoryFileServiceImplBase {
  private final MemoryFiles files;

  MemoryFileGrpcService(MemoryFiles files) {
    this.files = requireNonNull(files, "files is null");
  }

  @Override
  public void listMemoryFiles(
      ListMemoryFilesRequest req, StreamObserver<ListMemoryFilesResponse> out) {
    ListMemoryFilesResponse.Builder res = ListMemoryFilesResponse.newBuilder();
    files
        .list(ProtoMapping.scope(req.getScope()), ProtoMapping.options())
        .forEach(f -> res.addFiles(file(f)));
    out.onNext(res.build());
    out.onCompleted();
  }

  @Override
  public void readMemoryFile(
      ReadMemoryFileRequest req, StreamObserver<ReadMemoryFileResponse> out) {
    var f = files.read(ProtoMapping.scope(req.getScope()), req.getPath(), ProtoMapping.options());
    out.onNext(ReadMemoryFileResponse.newBuilder().setFile(file(f)).build());
    out.onCompleted();
  }

  @Override
  public void writeMemoryFile(
      WriteMemoryFileRequest req, StreamObserver<WriteMemoryFileResponse> out) {
    var f =
        files.write(
            ProtoMapping.scope(req.getScope()),
            req.getPath(),
            req.getContent(),
            req.getEtag(),
            ProtoMapping.options(req.getMetadataMap()));
    out.onNext(WriteMemoryFileResponse.newBuilder().setFile(file(f)).build());
    out.onCompleted();
  }

  @Override
  public void editMemoryFile(
      EditMemoryFileRequest req, StreamObserver<EditMemoryFileResponse> out) {
    var f =
        files.edit(
            ProtoMapping.scope(req.getScope()),
            req.getPath(),
            req.getOldText(),
            req.getNewText(),
            req.getEtag(),
            ProtoMapping.options(req.getMetadataMap()));
    out.onNext(EditMemoryFileResponse.newBuilder().setFile(file(f)).build());
    out.onCompleted();
  }

  private static MemoryFile file(MemoryFiles.FileView view) {
    MemoryFile.Builder b =
        MemoryFile.newBuilder()
            .setPath(view.path())
            .setContent(view.file().content())
            .setEtag(view.file().etag());
    if (view.file().updateTime() != null) {
      b.setUpdateTime(ProtoMapping.timestamp(view.file().updateTime()));
    }
    return b.build();
  }
}
