package dev.memsidecar.it;

import static dev.memsidecar.it.Fixtures.ids;
import static dev.memsidecar.it.Fixtures.remember;
import static dev.memsidecar.it.Fixtures.uniqueId;
import static dev.memsidecar.it.Fixtures.workspace;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.Timestamp;
import dev.memsidecar.proto.v1.ListMemoriesRequest;
import dev.memsidecar.proto.v1.ListMemoriesResponse;
import dev.memsidecar.proto.v1.Memory;
import dev.memsidecar.proto.v1.Scope;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** ListMemories paging (AIP-158) over 120 memories written one after another. */
class TestPaging {
  private static final int RECORDS = 120;
  private static final Scope SCOPE = workspace("ws-paging");

  @TempDir static Path workspaceDir;

  private static SidecarProcess sidecar;

  /** Ids in the order they were remembered: oldest first. */
  private static final List<String> REMEMBERED = new ArrayList<>();

  @BeforeAll
  static void rememberManyMemories() {
    sidecar = SidecarProcess.start(workspaceDir);
    Sentences sentences = new Sentences(120);
    for (int i = 0; i < RECORDS; i++) {
      REMEMBERED.add(remember(sidecar.memory(), SCOPE, "workspace", sentences.next()).getId());
    }
    assertEquals(RECORDS, new HashSet<>(REMEMBERED).size(), "ids must be distinct");
  }

  @AfterAll
  static void stopSidecar() {
    if (sidecar != null) {
      sidecar.close();
    }
  }

  @Test
  void pagesOfSevenVisitEveryMemoryOnceNewestFirst() {
    List<List<Memory>> pages = pages(SCOPE, 7);
    for (int i = 0; i < pages.size(); i++) {
      int at = i;
      assertTrue(pages.get(i).size() <= 7, () -> "page " + at + " holds more than 7");
      if (i < pages.size() - 1) {
        assertFalse(pages.get(i).isEmpty(), () -> "empty page " + at + " before the end");
      }
    }
    assertNewestFirstExactlyOnce(pages.stream().flatMap(List::stream).toList());
  }

  @Test
  void pagesOfFiftyHoldFiftyFiftyAndTwenty() {
    List<List<Memory>> pages = pages(SCOPE, 50);
    assertEquals(List.of(50, 50, 20), pages.stream().map(List::size).toList());
    assertNewestFirstExactlyOnce(pages.stream().flatMap(List::stream).toList());
  }

  @Test
  void pageSizeZeroMeansFifty() {
    List<List<Memory>> pages = pages(SCOPE, 0);
    assertEquals(List.of(50, 50, 20), pages.stream().map(List::size).toList());
    assertNewestFirstExactlyOnce(pages.stream().flatMap(List::stream).toList());
  }

  @Test
  void onePageHoldsEverythingWhenPageSizeIsLarge() {
    ListMemoriesResponse response = list(SCOPE, 500, "");
    assertEquals(RECORDS, response.getMemoriesCount());
    assertEquals("", response.getNextPageToken());
    assertNewestFirstExactlyOnce(response.getMemoriesList());
  }

  @Test
  void createTimesNeverIncreaseAlongThePages() {
    List<Memory> all = pages(SCOPE, 7).stream().flatMap(List::stream).toList();
    for (int i = 1; i < all.size(); i++) {
      Timestamp newer = all.get(i - 1).getCreateTime();
      Timestamp older = all.get(i).getCreateTime();
      int at = i;
      assertTrue(
          newer.getSeconds() > older.getSeconds()
              || newer.getSeconds() == older.getSeconds() && newer.getNanos() >= older.getNanos(),
          () -> "create_time increases at " + at + ": " + newer + " then " + older);
    }
  }

  @Test
  void pageSizeAboveFiveHundredIsCappedToFiveHundred() {
    Scope big = workspace(uniqueId("ws-big"));
    Sentences sentences = new Sentences(520);
    for (int i = 0; i < 520; i++) {
      remember(sidecar.memory(), big, "workspace", sentences.next());
    }
    ListMemoriesResponse first = list(big, 100_000, "");
    assertEquals(500, first.getMemoriesCount());
    assertFalse(first.getNextPageToken().isEmpty(), "more memories follow");
    ListMemoriesResponse second = list(big, 100_000, first.getNextPageToken());
    assertEquals(20, second.getMemoriesCount());
    assertEquals("", second.getNextPageToken());
    Set<String> seen = new HashSet<>(ids(first.getMemoriesList()));
    seen.addAll(ids(second.getMemoriesList()));
    assertEquals(520, seen.size());
  }

  private static void assertNewestFirstExactlyOnce(List<Memory> listed) {
    List<String> expected = new ArrayList<>(REMEMBERED);
    Collections.reverse(expected);
    assertEquals(expected, ids(listed));
  }

  private static List<List<Memory>> pages(Scope scope, int pageSize) {
    List<List<Memory>> pages = new ArrayList<>();
    String token = "";
    do {
      if (pages.size() > 1_000) {
        throw new AssertionError("paging never ends");
      }
      ListMemoriesResponse response = list(scope, pageSize, token);
      pages.add(response.getMemoriesList());
      token = response.getNextPageToken();
    } while (!token.isEmpty());
    return pages;
  }

  private static ListMemoriesResponse list(Scope scope, int pageSize, String token) {
    return sidecar
        .memory()
        .listMemories(
            ListMemoriesRequest.newBuilder()
                .setScope(scope)
                .setProfile("workspace")
                .setPageSize(pageSize)
                .setPageToken(token)
                .build());
  }
}
