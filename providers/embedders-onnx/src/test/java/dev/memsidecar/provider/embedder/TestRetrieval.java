package dev.memsidecar.provider.embedder;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memsidecar.api.Embedder;
import dev.memsidecar.toolkit.HashEmbedder;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A semantic model finds the memory a question is about when they share meaning but few words,
 * where the keyword {@code hash} embedder cannot: each question is asked against all the memories
 * of its language, and the right one must rank first. Memories and questions written for this test:
 * paraphrases, synonyms, a question about a category the memory names an instance of.
 */
class TestRetrieval {
  /** Memory, then a question it answers. */
  private static final List<String[]> ENGLISH =
      List.of(
          pair("The user can't stand cilantro.", "What food does the user dislike?"),
          pair(
              "Jane's daughter starts kindergarten in September.",
              "When does the child begin school?"),
          pair(
              "The team deploys to production every Tuesday after the standup meeting.",
              "On which weekday do releases go live?"),
          pair("Mark is allergic to peanuts.", "What can't Mark eat without getting sick?"),
          pair("The user drives a red Tesla Model 3.", "What car does the user own?"),
          pair("Our office moved to Berlin last spring.", "Where is the company headquartered?"),
          pair(
              "She has been learning to play the cello for two years.",
              "Which musical instrument is she studying?"),
          pair("The user's cat is called Whiskers.", "What is the name of the user's pet?"),
          pair(
              "The staging database runs PostgreSQL 16.",
              "Which SQL engine backs the test environment?"),
          pair(
              "Tom prefers to be contacted by email rather than phone.", "How should I reach Tom?"),
          pair(
              "The user ran a marathon in under four hours last October.",
              "What athletic achievement did the user accomplish?"),
          pair("Maria is a pediatric nurse at the city hospital.", "What is Maria's job?"),
          pair("The user is vegetarian and avoids all meat.", "Does the user eat beef?"),
          pair("Never force-push to the main branch.", "Is rewriting shared git history allowed?"),
          pair(
              "The quarterly budget review is scheduled for March 14.",
              "When do we go over the finances?"),
          pair("The user feels anxious when flying.", "Is the user afraid of air travel?"),
          pair("Alex recently adopted a golden retriever puppy.", "Did Alex get a new dog?"),
          pair(
              "The API rate limit is 100 requests per minute.",
              "How many calls can a client make before being throttled?"),
          pair(
              "The user's favorite author is Haruki Murakami.",
              "Which novelist does the user enjoy reading most?"),
          pair(
              "Our CI pipeline takes about twelve minutes to finish.",
              "How long does the build take?"),
          pair("Sam is moving to Tokyo for a new job in June.", "Where is Sam relocating?"),
          pair("The user wakes up at 5 a.m. to meditate.", "What is the user's morning routine?"),
          pair("The printer on the third floor is broken.", "Which office equipment needs repair?"),
          pair("Lisa's birthday is on the 3rd of August.", "When was Lisa born?"),
          pair(
              "The user speaks fluent Spanish and some Portuguese.",
              "What languages does the user know?"),
          pair(
              "The backend is written in Go and the frontend in TypeScript.",
              "Which programming languages does the project use?"),
          pair(
              "The user's grandmother passed away last winter.",
              "Did someone in the user's family die recently?"),
          pair(
              "We switched our cloud hosting from AWS to Google Cloud.",
              "Which provider runs our servers now?"),
          pair(
              "The user hates long meetings without an agenda.",
              "What kind of gatherings annoy the user?"),
          pair("Ben broke his leg skiing in the Alps.", "How did Ben get injured?"),
          pair(
              "The user is saving money to buy a house next year.",
              "What is the user's financial goal?"),
          pair(
              "Emma volunteers at an animal shelter on weekends.",
              "What does Emma do on Saturdays?"),
          pair(
              "The mobile app crashes when the user uploads large photos.",
              "What bug happens with big images?"),
          pair(
              "The user's doctor told them to cut down on salt.",
              "What dietary advice did the user receive?"),
          pair(
              "Kevin and his wife are expecting twins in the fall.",
              "Is Kevin going to be a father?"),
          pair(
              "The user prefers tea over coffee in the morning.",
              "Which hot drink does the user like to start the day with?"));

  /** 记忆，然后是它能回答的问题。 */
  private static final List<String[]> CHINESE =
      List.of(
          pair("用户受不了香菜的味道。", "用户不喜欢吃什么？"),
          pair("小王的女儿九月开始上幼儿园。", "孩子什么时候入学？"),
          pair("团队每周二站会后发布到生产环境。", "新版本哪天上线？"),
          pair("李明对花生过敏。", "谁吃了某种坚果会生病？"),
          pair("用户开一辆红色的特斯拉。", "用户的汽车是什么牌子？"),
          pair("我们公司去年春天搬到了深圳。", "办公室现在在哪个城市？"),
          pair("她学大提琴已经两年了。", "她在练习什么乐器？"),
          pair("用户的猫叫咪咪。", "用户的宠物叫什么名字？"),
          pair("测试环境的数据库用的是 PostgreSQL 16。", "预发布服务器用哪种数据存储？"),
          pair("老张更喜欢用邮件联系，不喜欢打电话。", "怎样和他沟通最好？"),
          pair("用户去年十月跑完了全程马拉松。", "用户有什么运动成就？"),
          pair("小红是市医院的儿科护士。", "她的职业是什么？"),
          pair("用户是素食者，不吃任何肉类。", "用户能吃牛排吗？"),
          pair("禁止强制推送到主分支。", "可以改写共享的 git 历史吗？"),
          pair("季度预算评审定在三月十四日。", "什么时候讨论财务开支？"),
          pair("用户坐飞机时会很紧张。", "用户害怕乘坐航班吗？"),
          pair("阿强最近领养了一只金毛小狗。", "谁家新添了宠物？"),
          pair("接口限流是每分钟一百次请求。", "客户端调用频率上限是多少？"),
          pair("用户最喜欢的作家是村上春树。", "用户爱读哪位小说家的书？"),
          pair("持续集成流水线大约需要十二分钟。", "构建要跑多久？"),
          pair("小李六月要去东京工作。", "谁要搬到日本？"),
          pair("用户每天早上五点起床冥想。", "用户的晨间习惯是什么？"),
          pair("三楼的打印机坏了。", "哪台办公设备需要维修？"),
          pair("用户说一口流利的西班牙语。", "用户会哪些外语？"),
          pair("用户的奶奶去年冬天去世了。", "用户家里最近有亲人离世吗？"),
          pair("我们把云服务从阿里云迁移到了腾讯云。", "现在服务器托管在哪家厂商？"),
          pair("用户讨厌没有议程的长会。", "什么样的会议让用户反感？"),
          pair("用户在攒钱明年买房。", "用户的理财目标是什么？"),
          pair("上传大图片时手机应用会崩溃。", "大照片会触发什么问题？"),
          pair("用户早上更喜欢喝茶而不是咖啡。", "用户早晨爱喝什么饮料？"));

  @Test
  void bgeSmallEnRanksTheRightMemoryFirstFarMoreOftenThanHash() {
    int bge = firsts(new BgeSmallEnEmbedder(), ENGLISH);
    int hash = firsts(new HashEmbedder(), ENGLISH);
    String figures = "bge-small-en " + bge + ", hash " + hash + " of " + ENGLISH.size();
    assertTrue(bge >= ENGLISH.size() * 3 / 4, figures);
    assertTrue(bge >= hash + ENGLISH.size() / 4, figures);
  }

  @Test
  void bgeSmallZhRanksTheRightMemoryFirstFarMoreOftenThanHash() {
    int bge = firsts(new BgeSmallZhEmbedder(), CHINESE);
    int hash = firsts(new HashEmbedder(), CHINESE);
    String figures = "bge-small-zh " + bge + ", hash " + hash + " of " + CHINESE.size();
    assertTrue(bge >= CHINESE.size() * 3 / 4, figures);
    assertTrue(bge >= hash + CHINESE.size() / 4, figures);
  }

  /** How many questions rank their own memory first among all the memories. */
  static int firsts(Embedder embedder, List<String[]> pairs) {
    List<String> memories = new ArrayList<>();
    List<String> questions = new ArrayList<>();
    for (String[] p : pairs) {
      memories.add(p[0]);
      questions.add(p[1]);
    }
    List<float[]> m = embedder.embedAll(memories);
    List<float[]> q = embedder.embedAll(questions);
    int firsts = 0;
    for (int i = 0; i < q.size(); i++) {
      int best = -1;
      float bestScore = Float.NEGATIVE_INFINITY;
      for (int j = 0; j < m.size(); j++) {
        float score = Embedder.cosine(q.get(i), m.get(j));
        if (score > bestScore) {
          bestScore = score;
          best = j;
        }
      }
      if (best == i) {
        firsts++;
      }
    }
    return firsts;
  }

  /** The English and Chinese pairs, for the bench. */
  static List<String[]> english() {
    return ENGLISH;
  }

  static List<String[]> chinese() {
    return CHINESE;
  }

  private static String[] pair(String memory, String question) {
    return new String[] {memory, question};
  }
}
