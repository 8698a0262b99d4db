package dev.memsidecar.bench;

import dev.memsidecar.proto.v1.ListMemoriesRequest;
import dev.memsidecar.proto.v1.ListMemoriesResponse;
import dev.memsidecar.proto.v1.Memory;
import dev.memsidecar.proto.v1.MemoryServiceGrpc.MemoryServiceBlockingStub;
import dev.memsidecar.proto.v1.Scope;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** What the quality benches read back from a sidecar. */
final class Memories {
  private Memories() {}

  /** Every memory of a profile in a scope, page by page (inactive ones too when asked). */
  static List<Memory> all(
      MemoryServiceBlockingStub stub, Scope scope, String profile, boolean includeInactive) {
    List<Memory> out = new ArrayList<>();
    String token = "";
    do {
      ListMemoriesResponse page =
          stub.withDeadlineAfter(60, TimeUnit.SECONDS)
              .listMemories(
                  ListMemoriesRequest.newBuilder()
                      .setScope(scope)
                      .setProfile(profile)
                      .setPageSize(500)
                      .setPageToken(token)
                      .setIncludeInactive(includeInactive)
                      .build());
      out.addAll(page.getMemoriesList());
      token = page.getNextPageToken();
    } while (!token.isEmpty());
    return out;
  }
}
