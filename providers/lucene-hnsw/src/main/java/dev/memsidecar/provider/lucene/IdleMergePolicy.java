package dev.memsidecar.provider.lucene;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.lucene.index.FilterMergePolicy;
import org.apache.lucene.index.MergePolicy;
import org.apache.lucene.index.SegmentCommitInfo;
import org.apache.lucene.index.SegmentInfos;

/**
 * The store's merge policy: {@code in}'s, except for the merge into one segment the store asks for
 * when its writes pause ({@code forceMerge(1)}, see {@link LuceneHnswStore}). That one rewrites the
 * largest segment only when the others together hold at least a {@value #REWRITE_SHARE}th of its
 * documents; otherwise it merges the others among themselves and leaves the largest as it is.
 *
 * <p>Why: a search runs one HNSW graph search per segment, so a few segments are worth merging; but
 * rewriting the whole index every time writes pause costs the whole index each time. With a million
 * records that meant 1 GB of vectors rewritten and a new graph over them built (9 minutes on two
 * cores, and the index's files mapped twice meanwhile) after every few Remembers. With this rule
 * the largest segment is rewritten only after the index grew by a quarter since, so the rewriting
 * is bounded by a constant times the writes, and a few Remembers cost a small merge.
 */
final class IdleMergePolicy extends FilterMergePolicy {
  /** The others must hold at least 1/{@value} of the largest segment's documents to rewrite it. */
  static final int REWRITE_SHARE = 4;

  IdleMergePolicy(MergePolicy in) {
    super(in);
  }

  @Override
  public MergeSpecification findForcedMerges(
      SegmentInfos infos,
      int maxSegmentCount,
      Map<SegmentCommitInfo, Boolean> segmentsToMerge,
      MergeContext context)
      throws IOException {
    if (maxSegmentCount != 1) {
      return super.findForcedMerges(infos, maxSegmentCount, segmentsToMerge, context);
    }
    // Every segment there is now, not only those there when the merge was asked for: Lucene's own
    // merges may have replaced some of them meanwhile.
    List<SegmentCommitInfo> asked = new ArrayList<>();
    SegmentCommitInfo largest = null;
    long largestDocuments = -1;
    long total = 0;
    for (SegmentCommitInfo info : infos) {
      if (context.getMergingSegments().contains(info)) {
        return null; // one merge at a time: the store asks again once it is done
      }
      asked.add(info);
      long documents = documents(info, context);
      total += documents;
      if (documents > largestDocuments) {
        largest = info;
        largestDocuments = documents;
      }
    }
    if (asked.size() < 2) {
      return null;
    }
    if ((total - largestDocuments) * REWRITE_SHARE < largestDocuments) {
      asked.remove(largest);
      if (asked.size() < 2) {
        return null;
      }
    }
    MergeSpecification merge = new MergeSpecification();
    merge.add(new OneMerge(asked));
    return merge;
  }

  /** The live documents of {@code info}. */
  private static long documents(SegmentCommitInfo info, MergeContext context) throws IOException {
    return info.info.maxDoc() - (long) context.numDeletesToMerge(info);
  }
}
