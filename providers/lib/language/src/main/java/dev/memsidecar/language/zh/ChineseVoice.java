package dev.memsidecar.language.zh;

import dev.memsidecar.language.ProtectedSpans;
import dev.memsidecar.language.extraction.Punctuation;
import dev.memsidecar.language.extraction.Voice;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;

/**
 * Writes a Chinese statement so that it stands alone: 我 becomes the speaker's name, 我们/咱们 the
 * speaker and others (等人) or the team, 你/您 the addressee when known (你好 aside); 自我 stays. Commands,
 * code spans, URLs, e-mail addresses and quoted text are never touched. Stateless and thread-safe.
 */
final class ChineseVoice implements Voice {
  @Override
  public String thirdPerson(String sentence, String speaker, String addressee, String group) {
    List<String> saved = new ArrayList<>();
    String s = ProtectedSpans.mask(sentence, saved);
    s = s.replace("自我", "\uE002");
    String we = group != null ? group : speaker + "等人";
    s = s.replace("我们", we).replace("咱们", we);
    s = s.replace("我", speaker);
    if (addressee != null) {
      s = s.replaceAll("你们|您们", addressee + "等人");
      s = s.replaceAll("[你您](?![好])", addressee);
    }
    s = s.replace("\uE002", "自我");
    return ProtectedSpans.unmask(s, saved);
  }

  @Override
  public String team() {
    return "团队";
  }

  @Override
  public String terminate(String text) {
    return Punctuation.terminate(text, ".。!?！？`", "。");
  }

  @Override
  public String sentenceSeparator() {
    return "";
  }

  @Override
  public String notes(List<String> notes) {
    return "（" + String.join("；", notes) + "）";
  }

  @Override
  public String saidOn(LocalDate day) {
    return "说于" + ChineseDatePhrases.chinese(day);
  }

  @Override
  public String sharedImage(String speaker, String caption) {
    return speaker + "分享了图片：" + caption + "。";
  }
}
