package dev.memsidecar.toolkit;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class TestHybridScore {
  private static final double W = HybridScore.MEANING_WEIGHT;

  @Test
  void meaningAndWordsBlendByTheWeightAndTheSpeakerCueAdds() {
    assertEquals(0.8f * 0.5f + 0.2f * 1f, HybridScore.of(W, true, true, 0.5, 1.0, false), 1e-6);
    assertEquals(
        0.8f * 0.5f + 0.2f * 0.25f + 0.05f, HybridScore.of(W, true, true, 0.5, 0.25, true), 1e-6);
  }

  @Test
  void oneSideAloneTakesTheWholeScale() {
    // No words (only stopwords): meaning alone, and the speaker cue cannot fire.
    assertEquals(0.5f, HybridScore.of(W, true, false, 0.5, 0.0, false), 1e-6);
    // A zero query vector: words alone, with the cue.
    assertEquals(0.75f, HybridScore.of(W, false, true, 0.0, 0.7, true), 1e-6);
    assertEquals(0f, HybridScore.of(W, false, false, 0.0, 0.0, true), 1e-6);
  }

  @Test
  void theScoreIsClampedToOne() {
    assertEquals(1f, HybridScore.of(W, true, true, 1.0, 1.0, true));
    assertEquals(1f, HybridScore.of(W, false, true, 0.0, 1.0, true));
  }

  @Test
  void theLexicalHashEmbedderWeighsMeaningLess() {
    assertEquals(HybridScore.LEXICAL_MEANING_WEIGHT, HybridScore.meaningWeightFor("hash"));
    assertEquals(HybridScore.MEANING_WEIGHT, HybridScore.meaningWeightFor("bge-small-en"));
  }
}
