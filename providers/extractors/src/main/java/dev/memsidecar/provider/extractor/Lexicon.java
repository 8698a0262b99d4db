package dev.memsidecar.provider.extractor;

import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The words and patterns the rules extractor recognises, English and Chinese, in one place so they
 * can be read and extended together. Stateless and thread-safe.
 */
final class Lexicon {
  private Lexicon() {}

  /** A set of words that tolerates repeats in its list. */
  static Set<String> words(String... words) {
    return Set.copyOf(List.of(words));
  }

  // --- explicit instructions ------------------------------------------------------------------

  static final Pattern EXPLICIT_EN =
      Pattern.compile(
          "(?i)^(?:(?:hey|ok|okay|also|and|oh|so|btw|by the"
              + " way)[,!]?\\s+)?(?:(?:please|pls|plz|kindly)\\s+)?(?:(?:can|could|would|will)"
              + " you\\s+(?:please\\s+)?)?(?:remember|memori[sz]e|keep in mind|don't forget|do not"
              + " forget|never forget|make a note|take note|save (?:this|that|it) (?:to|in) (?:your"
              + " )?memory|note for (?:the )?future|for future reference)(?:\\s+(?:this|that|the"
              + " following))?\\s*(?:[:,-]|that\\b)?\\s*(.*)$");
  static final Pattern EXPLICIT_ZH =
      Pattern.compile(
          "^(?:(?:另外|还有|对了|好的)[，,]?)?(?:请|麻烦|帮我|你要|务必)?(?:你)?(?:记住|记一下|记下|牢记|记着|别忘了|不要忘记|不要忘了|请记得|记得)"
              + "(?:一下)?(?:这个|这件事|这点)?[：:，,]?\\s*(.*)$");

  // --- corrections ----------------------------------------------------------------------------

  static final Pattern CORRECTION_EN =
      Pattern.compile(
          "(?i)^(?:correction\\s*[:,-]|to correct (?:myself|that|you)[:,]?|sorry,?\\s+(?:i meant|i"
              + " mean|my mistake)[:,]?|i meant[:,]?|my"
              + " mistake[:,.!]?|wait,?\\s+(?:no|actually)[:,]?|no,\\s+(?=(?:it|that|the|this|it's|that's)\\b)|nope,\\s+|that's"
              + " (?:wrong|not right|incorrect)[.!,:]?|that is (?:wrong|not"
              + " right|incorrect)[.!,:]?|actually,?\\s+(?=(?:it's|it is|that's|that is)\\b)"
              + "|actually,?\\s+(?=(?!i\\b|i'm\\b|i've\\b|we\\b|my\\b)[\\w'`-]+(?:\\s+[\\w'`-]+){0,4}\\s+(?:is|are|was|were|'s|should"
              + " be|must be|will be)\\b))\\s*(.*)$");
  static final Pattern CORRECTION_ZH =
      Pattern.compile("^(?:不对|不是的|错了|更正|纠正一下|我说错了|说错了|其实|应该是)[，,：:。！!\\s]*(.*)$");

  // --- preferences and identity ---------------------------------------------------------------

  private static final String ADV =
      "(?:really|also|just|absolutely|totally|truly|still|do|much|definitely|kinda|sorta|generally"
          + "|usually|always|actually|especially|particularly|personally|honestly|very|so)\\s+";
  static final Pattern PREFERENCE_EN =
      Pattern.compile(
          "(?i)(?:\\b(?:i|we)\\s+(?:"
              + ADV
              + ")*(?:prefer|like|love|enjoy|adore|hate|dislike|loathe|can't stand|cannot"
              + " stand|don't like|do not like|don't enjoy|don't want|am into|am a (?:big |huge"
              + " )?fan of)\\b|\\bi'm\\s+(?:"
              + ADV
              + ")*(?:into|a (?:big |huge )?fan of|passionate about|obsessed with|allergic to)\\b"
              + "|\\bi am\\s+(?:"
              + ADV
              + ")*(?:passionate about|obsessed with|allergic to)\\b"
              + "|\\b(?:my|our)\\s+(?:all-time\\s+)?(?:favou?rite|fave|preferred|go-to)\\b"
              + "|\\b(?:is|are)\\s+my\\s+(?:favou?rite|fave)\\b)"
              + "(?!\\s+(?:it|that|this|them|you|to hear|hearing|the idea)\\s*[.!]*$)");
  static final Pattern PREFERENCE_ZH =
      Pattern.compile(
          "我(?:们)?(?:很|最|比较|更|特别|非常|也|真的|一直|超|挺|还是|都)?(?:喜欢|爱吃|爱喝|爱看|爱玩|偏好|更喜欢|讨厌|不喜欢|偏爱|倾向于|习惯用|热爱|钟爱|受不了|不吃|不喝)"
              + "|我(?:最)?喜欢的|我的爱好|我的偏好");
  static final Pattern IDENTITY_EN =
      Pattern.compile(
          "(?i)\\bmy name(?:'s| is)\\b|\\bcall me\\b|\\bi'm called\\b|\\bi(?:'m|"
              + " am)\\s+(?:a|an)\\s+(?!(?:bit|little|lot|big fan|huge"
              + " fan|fan|part|few|couple|great|good|bad|real|total)\\b)\\w|\\bi(?:'m|"
              + " am)\\s+\\d{1,3}\\s*(?:years?[- ]old|yo)\\b|\\bi(?:\\s+(?:still|currently|now|also"
              + "))?\\s+(?:work|worked)\\s+(?:at|for|as|in)\\b|\\bi(?:'m|"
              + " am)\\s+(?:working|employed)\\s+(?:at|for|as)\\b|\\bi(?:\\s+(?:still|currently|now|also))?\\s+(?:live|lived)\\s+in\\b|\\bi(?:'m|"
              + " am)\\s+(?:originally\\s+)?from\\b|\\bi\\s+(?:grew up|was born|was"
              + " raised)\\s+in\\b|\\bi(?:'m|"
              + " am)\\s+(?:based|located)\\s+in\\b|\\bi\\s+(?:study|studied|major|majored)\\b|\\bi(?:'m|"
              + " am)\\s+(?:studying|majoring)\\b"
              + "|\\bmy\\s+(?:wife|husband|partner|boyfriend|girlfriend|fianc[ée]e?|son|daughter|kids?|children"
              + "|mom|mother|dad|father|brother|sister|dog|cat|pet|job|role|title|email|e-mail|phone"
              + "|address|birthday|age|hometown|team|manager|boss)(?:'s)?\\s+(?:is|are|was|named|called)\\b"
              + "|\\bi\\s+have\\s+(?:a|an|one|two|three|four|five|\\d+)\\s+(?:\\w+\\s+)?(?:dogs?|cats?|kids|"
              + "children|sons?|daughters?|brothers?|sisters?|pets?|siblings?)\\b");
  static final Pattern IDENTITY_ZH =
      Pattern.compile(
          "我叫|我的名字(?:是|叫)|我是(?!说|不是|觉得|在说|想|要|因为|真的|个)|我在.{1,20}(?:工作|上班|上学|读书|实习)"
              + "|我住在|我来自|我今年\\d+岁|我老家|我家在|我的(?:妻子|丈夫|老婆|老公|女朋友|男朋友|儿子|女儿|孩子|爸爸|妈妈|邮箱|电话|生日|工作)");

  // --- procedures and commands ------------------------------------------------------------------

  private static final String TOOLS =
      "npm|npx|yarn|pnpm|bun|deno|mvn|\\./mvnw|mvnw|gradle|\\./gradlew|gradlew|kubectl|helm|docker|"
          + "docker-compose|podman|git|gh|pip|pip3|pipx|uv|poetry|pytest|tox|cargo|rustup|javac|curl|"
          + "wget|ssh|scp|rsync|terraform|tofu|ansible|ansible-playbook|sudo|systemctl|journalctl|"
          + "apt|apt-get|yum|dnf|brew|bazel|dotnet|rake|bundle|rails|psql|mysql|redis-cli|mongosh|aws|"
          + "gcloud|az|sbt|composer|nvm|sdk|flutter|xcodebuild|adb|openssl|jq|ffmpeg|vagrant|"
          + "minikube|k3d|skaffold|argocd|istioctl|eksctl|pulumi|firebase|vercel|netlify|heroku|"
          + "wrangler|supabase|prisma|alembic|flyway|liquibase|buf|protoc|grpcurl|jest|vitest|"
          + "cypress|playwright|eslint|prettier|ruff|flake8|mypy|pre-commit|rustc|gcc|nix|"
          + "python|python3|node|java|go|make|bash|sh|ls|cd|cat|grep|rg|find|chmod|mkdir|rm|cp|mv|"
          + "tar|export|source|task";

  /** Tools that are also everyday words: a command needs a flag, path or known subcommand. */
  private static final Set<String> WEAK_TOOLS =
      words(
          "python", "python3", "node", "java", "go", "make", "bash", "sh", "ls", "cd", "cat",
          "grep", "find", "rm", "cp", "mv", "tar", "export", "source", "just", "task", "kind",
          "git", "sudo", "helm", "bundle", "rails", "jest", "buf", "sdk", "az", "apt", "brew",
          "nix", "gh", "uv");

  private static final Set<String> SUBCOMMANDS =
      words(
          "run",
          "install",
          "ci",
          "test",
          "build",
          "deploy",
          "start",
          "exec",
          "apply",
          "get",
          "describe",
          "logs",
          "rollout",
          "push",
          "pull",
          "commit",
          "checkout",
          "clone",
          "compose",
          "up",
          "down",
          "ps",
          "clean",
          "package",
          "verify",
          "lint",
          "format",
          "check",
          "serve",
          "dev",
          "migrate",
          "init",
          "plan",
          "status",
          "add",
          "rebase",
          "merge",
          "fetch",
          "restart",
          "stop",
          "login",
          "create",
          "delete",
          "update",
          "upgrade",
          "sync",
          "tag",
          "release",
          "publish",
          "bump",
          "mod",
          "vet",
          "tidy",
          "fmt",
          "clippy",
          "bench",
          "doc",
          "uninstall",
          "config",
          "set",
          "port-forward",
          "scale",
          "port",
          "diff",
          "show",
          "log",
          "stash",
          "reset",
          "switch",
          "branch",
          "remote",
          "cherry-pick",
          "revert",
          "bisect",
          "worktree",
          "audit",
          "outdated",
          "link",
          "pack",
          "rollback",
          "destroy",
          "validate",
          "import",
          "upload",
          "download",
          "cp",
          "rm",
          "sh",
          "bash",
          "version",
          "help",
          "-m",
          "-c",
          "manage.py");
  private static final Pattern TOOL_START = Pattern.compile("(?<![\\w./-])(" + TOOLS + ")(?=\\s)");
  private static final Pattern ARG = Pattern.compile("[\\w./:=@,+~%{}\\[\\]\"'<>*$-]+");
  private static final Set<String> PROSE_STOP =
      words(
          "before",
          "after",
          "to",
          "when",
          "first",
          "then",
          "and",
          "if",
          "so",
          "because",
          "or",
          "whenever",
          "each",
          "every",
          "once",
          "until",
          "while",
          "for",
          "on",
          "in",
          "with",
          "from",
          "as",
          "but",
          "which",
          "that",
          "it",
          "again",
          "instead",
          "every",
          "always",
          "never",
          "please",
          "the",
          "a",
          "an",
          "is",
          "are",
          "was",
          "will",
          "should",
          "must",
          "you",
          "we",
          "i",
          "they",
          "this",
          "these",
          "those",
          "there",
          "here",
          "now",
          "later",
          "since",
          "whether",
          "otherwise",
          "unless",
          "at",
          "by",
          "into",
          "onto",
          "of",
          "over",
          "than",
          "like",
          "via",
          "about",
          "without",
          "using",
          "through",
          "where",
          "who",
          "what",
          "how",
          "why",
          "not",
          "just",
          "also",
          "only",
          "really",
          "very",
          "rather",
          "me",
          "us",
          "them",
          "my",
          "your",
          "our",
          "their",
          "his",
          "her",
          "its");
  private static final Pattern CODE_SPAN = Pattern.compile("`([^`\\n]+)`");

  /** The command lines of {@code sentence}, verbatim, in order; empty when none. */
  static List<String> commands(String sentence) {
    java.util.List<String> out = new java.util.ArrayList<>();
    Matcher code = CODE_SPAN.matcher(sentence);
    while (code.find()) {
      String c = code.group(1).strip();
      if (looksLikeCommand(c, true)) {
        out.add(c);
      }
    }
    if (!out.isEmpty()) {
      return List.copyOf(out);
    }
    String plain = sentence.replaceAll("[，。；！？]", " ");
    Matcher m = TOOL_START.matcher(plain);
    int from = 0;
    while (m.find(from)) {
      String tool = m.group(1);
      int end = m.end();
      java.util.List<String> args = new java.util.ArrayList<>();
      int plainWords = 0;
      Matcher a = ARG.matcher(plain);
      int pos = end;
      while (pos < plain.length()) {
        while (pos < plain.length() && plain.charAt(pos) == ' ') {
          pos++;
        }
        if (pos >= plain.length() || !a.find(pos) || a.start() != pos) {
          break;
        }
        String arg = a.group();
        String bare = arg.replaceAll("[.,;:!?)]+$", "");
        String lower = bare.toLowerCase(java.util.Locale.ROOT);
        if (bare.isEmpty() || PROSE_STOP.contains(lower)) {
          break;
        }
        boolean flagValue = !args.isEmpty() && args.get(args.size() - 1).startsWith("-");
        if (!args.isEmpty() && !isTechnicalArg(bare) && !flagValue) {
          // After the subcommand a plain word is an argument ("get pods", "push origin main")
          // only while few and not prose: "kubectl port-forward over exposing debug ports" stops
          // at "over", "... exposing debug ports" at "exposing".
          boolean prose = lower.length() > 5 && (lower.endsWith("ing") || lower.endsWith("ly"));
          if (++plainWords > 3 || prose) {
            break;
          }
        }
        args.add(bare);
        pos = a.end();
        if (!bare.equals(arg)) {
          break;
        }
      }
      String command = tool + (args.isEmpty() ? "" : " " + String.join(" ", args));
      if (!args.isEmpty() && looksLikeCommand(command, false)) {
        out.add(command);
      }
      from = Math.max(end, pos);
      if (from >= plain.length()) {
        break;
      }
    }
    return List.copyOf(out);
  }

  private static final Pattern FLAG_OR_PATH =
      Pattern.compile(
          "(?:^|\\s)(?:--?[a-zA-Z][\\w-]*|\\.{0,2}/[\\w./-]+|[\\w-]+:[\\w:-]+|[\\w-]+=\\S+|[\\w-]+/[\\w./-]+|\\S+\\.(?:py|js|ts|sh|jar|yaml|yml|json|toml|xml|sql|java|go|rs))(?=\\s|$)");

  /** Whether {@code text} reads as a shell command line. */
  static boolean looksLikeCommand(String text, boolean quoted) {
    String[] parts = text.strip().split("\\s+");
    if (parts.length == 0 || parts[0].isEmpty()) {
      return false;
    }
    String first = parts[0].startsWith("$") ? parts[0].substring(1) : parts[0];
    boolean tool = TOOL_START.matcher(first + " ").lookingAt();
    boolean flagOrPath = FLAG_OR_PATH.matcher(text).find();
    if (quoted) {
      return tool || (parts.length >= 2 && flagOrPath) || first.startsWith("./");
    }
    if (!tool || parts.length < 2) {
      return false;
    }
    boolean sub = SUBCOMMANDS.contains(parts[1].toLowerCase(java.util.Locale.ROOT));
    if (WEAK_TOOLS.contains(first)) {
      // Everyday words ("just get", "make sure", "go run"): a flag or a path, or git's subcommands.
      return flagOrPath || (sub && first.equals("git"));
    }
    // A tool's name followed by prose is no command ("a poetry reading where ...").
    return sub
        || flagOrPath
        || java.util.Arrays.stream(parts).skip(1).anyMatch(Lexicon::isTechnicalArg);
  }

  private static final Pattern TECHNICAL_ARG = Pattern.compile("^-|[/.:=@_$~*{}\\[\\]<>\"'\\d]");

  /** An argument no sentence would hold: a flag, a path, a host, a number, a quoted string. */
  private static boolean isTechnicalArg(String arg) {
    return TECHNICAL_ARG.matcher(arg).find();
  }

  static final Pattern PROCEDURE_EN =
      Pattern.compile(
          "(?i)^(?:please\\s+)?(?:(?:always|never|first|then|next|finally)\\s+(?:run|use|execute|check|build|test|deploy|restart|rebuild|clear|update|call|bump|tag|verify|make"
              + " sure)\\b|(?:to|before|after|when(?:ever)?|once)\\s+[^,]{2,60},\\s*(?:always\\s+|first\\s+)?(?:run|use|execute|call|do|restart|rebuild|check|make"
              + " sure|set)\\b"
              + "|(?:run|execute|use)\\s+.{2,80}\\s+(?:before|after|to|whenever|when)\\s+\\w+)");
  static final Pattern PROCEDURE_ZH =
      Pattern.compile(
          "^(?:请)?(?:先.{1,40}(?:再|然后|之后).{1,40}|.{0,20}(?:之前|以前|前)(?:要|需要|必须)?先.{1,40}|(?:每次|部署|发布|提交|上线|合并).{0,20}(?:前|后|时)(?:要|需要|必须|都)?.{1,40}|(?:运行|执行|跑)\\s*.{2,60})$");

  // --- canonical tokens -----------------------------------------------------------------------

  static final Pattern CANONICAL_TOKEN =
      Pattern.compile(
          "\\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\\b|\\b[A-Z]{2,}[0-9]+[A-Z0-9]*\\b|https?://[^\\s，。；！？、）)\\]\"'<>]+"
              + "|[\\w.+-]+@[\\w-]+\\.[\\w.-]+|\\b[a-z0-9-]+(?:\\.[a-z0-9-]+)+:\\d{2,5}\\b"
              + "|\\b(?:[a-z0-9-]+\\.)+(?:com|org|net|io|dev|internal|local|cn|ai|app|cloud|co|svc)\\b"
              + "|\\bv?\\d+\\.\\d+\\.\\d+(?:[-+][\\w.]+)?\\b|\\bv\\d+(?:\\.\\d+)?\\b"
              + "|(?<![\\w/])(?:/[\\w.-]+){2,}|(?<![\\w/])\\.?[\\w-]+(?:/[\\w.-]+){2,}"
              + "|(?<![\\w/])\\.?[\\w-]+/[\\w./-]*\\.(?:ya?ml|json|toml|xml|md|txt|java|py|js|ts|go|rs|sh"
              + "|sql|conf|cfg|ini|properties|gradle|lock|env)\\b|\\bport\\s+\\d{2,5}\\b|端口\\s*\\d{2,5}");

  /** The canonical tokens of {@code text}, in order. */
  static List<String> canonicalTokens(String text) {
    java.util.List<String> out = new java.util.ArrayList<>();
    Matcher m = CANONICAL_TOKEN.matcher(text);
    while (m.find()) {
      out.add(m.group().replaceAll("[.,;:)]+$", ""));
    }
    return List.copyOf(out);
  }

  /** Words that mark a statement as about the workspace (a project, a system), not a person. */
  static final Pattern TECHNICAL =
      Pattern.compile(
          "(?i)\\b(?:repo|repository|build|deploy(?:ment|s|ed)?|server|api|endpoint|config(?:uration)?|branch"
              + "|release|test(?:s)?|port|database|db|service|cluster|version|pipeline|ci|cd|staging"
              + "|production|prod|module|package|library|dependency|schema|migration|container|image"
              + "|namespace|bucket|queue|topic|token|key|secret|env|environment|variable|script|command|commit|merge|pull"
              + " request|pr|code|project|workspace|sentinel|host|url|domain|backend"
              + "|frontend|sdk|cli|runtime|model|index|cache|log|logs|monitor|alert|dashboard|on-call"
              + "|oncall|sprint|ticket|jira|issue)\\b|部署|仓库|服务|接口|数据库|分支|版本|端口|配置|测试|发布|上线|代码"
              + "|项目|集群|环境|变量|脚本|命令|模型|缓存|日志|流水线");

  // --- small talk -------------------------------------------------------------------------------

  /** Leading interjections and forms of address, stripped before a sentence is judged. */
  static final Pattern LEADING_CHATTER =
      Pattern.compile(
          "(?i)^(?:(?:hey|hi|hello|yo|oh|ooh|wow|whoa|woah|aw+|yeah|yea|yep|yes|yup|no|nah|nope|ok|okay|sure|well|so|hmm+|haha+|hah|lol|omg|gosh|ah+|um+|uh+|thanks|thank"
              + " you|ty|cool|nice|great"
              + "|awesome|sweet|totally|absolutely|definitely|exactly|true|right|indeed|congrats|congratulations|btw|by"
              + " the way|anyway|anyways|on another note|on a different note|speaking of"
              + " which|speaking of that|also|plus|and|but|honestly|basically|ha|hey there|good to"
              + " see you|great to hear from you|good to hear from you|nice to hear from you|long"
              + " time no see|i know|you know|i see|guess what|fun fact|funny enough|for sure|of"
              + " course|oh man|man|dude|buddy|bro|friend|haha yeah|yeah yeah|omg yes|oh yeah|oh"
              + " wow|wow,? that's|aww+|yay|whew|phew)(?:\\s+(?:so much|a"
              + " lot|again|too|indeed|man|dude|buddy))?(?:\\s*,?\\s*(?-i:\\p{Lu}\\p{Ll}+))?"
              + "\\s*[,!.:;~-]+\\s*)+");

  static final Pattern CLOSER_EN =
      Pattern.compile(
          "(?i)^(?:talk (?:to you )?soon|see (?:you|ya)|bye|goodbye|take care|catch (?:you|ya)|have"
              + " a (?:good|great|nice|wonderful|lovely|fun)|good night|goodnight|good luck|best of"
              + " luck|enjoy|hope you|hope all|hope it|hope that|i hope you|i hope it|i hope"
              + " that|hope your|glad to hear|glad you|glad it|i'm glad|i am glad|so glad|good to"
              + " (?:see|hear|know)|great to (?:see|hear|know)|nice to (?:see|hear|know)|can't wait"
              + " to (?:hear|see)|let me know|keep (?:it up|up the|going|me posted|at"
              + " it|pushing|rocking|shining|doing)|you (?:got|can do) this|you've got this|no"
              + " worries|no problem|you're welcome|my pleasure|likewise|same here|me too|me"
              + " neither|thanks|thank you|thx|cheers|congrats|congratulations|way to go|well"
              + " done|good job|great job|nice job|sounds"
              + " (?:good|great|fun|awesome|amazing|like|lovely|wonderful|cool|interesting|exciting)|looks"
              + " (?:good|great|fun|awesome|amazing|like|lovely|wonderful|cool|beautiful)|that"
              + " (?:sounds|looks|seems|must|must've|would|'d)|i'm (?:so )?happy for|i'm (?:so"
              + " )?proud of you|i'm here for you|i'm sorry to hear|sorry to hear|i bet|i agree|i"
              + " totally agree|i completely agree|i couldn't agree|you're right|you are"
              + " right|you're so right|agreed|absolutely|exactly|totally|for sure|of course|love"
              + " (?:it|that|this)\\W*$|i love (?:it|that|this)\\W*$|i (?:can|could) imagine|i"
              + " understand|i hear you|i feel you|i get (?:it|that|you))");

  /** Reactions: dropped unless they speak of the speaker or hold a specific. */
  static final Pattern REACTION_EN =
      Pattern.compile(
          "(?i)^(?:that's|that is|that was|that'd|that would|what a|how"
              + " (?:cool|nice|great|awesome|amazing|wonderful|lovely|sweet|fun|exciting|special|inspiring)|so"
              + " (?:cool|nice|great|awesome|amazing|sweet|fun|inspiring)|such a|it's"
              + " (?:so|really|great|awesome|amazing|cool|nice|good|important|key|true|all"
              + " about|crucial|vital|essential|okay|ok|fine|hard|tough)|it is"
              + " (?:so|really|great|important|key|true)|this is"
              + " (?:so|really|great|awesome|amazing)|wow|awesome|amazing|cool|nice|great|you|your|you're|you've|you'd|you'll|u"
              + " |ur )");

  static final Pattern ZH_SMALL_TALK =
      Pattern.compile(
          "^(?:你好|您好|嗨|哈喽|早上好|晚上好|晚安|谢谢|多谢|感谢|不客气|没关系|没问题|好的|好吧|好呀|好啊|嗯+|哈+|呵+|是的|对的|对啊|对呀|真的吗|是吗|太棒了|太好了|真棒|真好|不错|厉害|加油|辛苦了|再见|拜拜|回头聊|收到|明白|了解|知道了|恭喜|祝你|希望你|听起来|看起来|哇|啊|哦|噢|呃)"
              + ".{0,12}$");

  /** Evaluative and discourse words that carry no fact on their own. */
  static final Set<String> FILLER =
      words(
          "really",
          "so",
          "very",
          "super",
          "totally",
          "truly",
          "definitely",
          "absolutely",
          "pretty",
          "quite",
          "just",
          "also",
          "even",
          "still",
          "always",
          "never",
          "ever",
          "actually",
          "honestly",
          "literally",
          "kinda",
          "sorta",
          "much",
          "many",
          "lot",
          "lots",
          "bit",
          "little",
          "great",
          "good",
          "nice",
          "cool",
          "awesome",
          "amazing",
          "wonderful",
          "fantastic",
          "incredible",
          "beautiful",
          "lovely",
          "cute",
          "sweet",
          "fun",
          "funny",
          "exciting",
          "excited",
          "happy",
          "glad",
          "proud",
          "grateful",
          "thankful",
          "thanks",
          "thank",
          "appreciate",
          "appreciated",
          "feel",
          "felt",
          "feeling",
          "feelings",
          "think",
          "thought",
          "thinking",
          "know",
          "knew",
          "guess",
          "hope",
          "hoping",
          "wish",
          "mean",
          "means",
          "meant",
          "sure",
          "yeah",
          "wow",
          "hey",
          "oh",
          "thing",
          "things",
          "stuff",
          "something",
          "anything",
          "everything",
          "nothing",
          "way",
          "ways",
          "tough",
          "hard",
          "easy",
          "important",
          "special",
          "powerful",
          "inspiring",
          "inspired",
          "inspiration",
          "inspire",
          "motivated",
          "motivating",
          "motivation",
          "support",
          "supportive",
          "supported",
          "help",
          "helped",
          "helps",
          "helpful",
          "keep",
          "kept",
          "going",
          "get",
          "gets",
          "getting",
          "got",
          "make",
          "makes",
          "making",
          "take",
          "takes",
          "taking",
          "go",
          "goes",
          "do",
          "doing",
          "done",
          "been",
          "being",
          "can",
          "could",
          "would",
          "should",
          "shall",
          "may",
          "might",
          "must",
          "one",
          "well",
          "right",
          "true",
          "agree",
          "world",
          "life",
          "people",
          "someone",
          "everyone",
          "anyone",
          "others",
          "other",
          "gonna",
          "wanna",
          "gotta",
          "let",
          "lets",
          "ll",
          "ve",
          "re",
          "don",
          "didn",
          "isn",
          "wasn",
          "doesn",
          "s",
          "t",
          "d",
          "m",
          "im",
          "ive",
          "id",
          "awesome",
          "totally",
          "yes",
          "yep",
          "no",
          "not",
          "like",
          "love",
          "loved",
          "loves",
          "enjoy",
          "enjoyed",
          "time",
          "times",
          "day",
          "days",
          "today",
          "now",
          "back",
          "again",
          "sounds",
          "sound",
          "looks",
          "look",
          "looking",
          "seems",
          "seem",
          "see",
          "seeing",
          "saw",
          "hear",
          "heard",
          "hearing",
          "say",
          "said",
          "tell",
          "told",
          "share",
          "shared",
          "sharing",
          "talk",
          "talking",
          "glad",
          "proud",
          "sorry",
          "okay",
          "ok",
          "want",
          "wanted",
          "need",
          "needed",
          "us",
          "all",
          "some",
          "any",
          "more",
          "most",
          "too",
          "here",
          "than",
          "out",
          "up",
          "about",
          "over",
          "off",
          "only",
          "own",
          "same",
          "such",
          "can't",
          "cant",
          "won't",
          "wont",
          "don't",
          "doesn't",
          "didn't",
          "i'm",
          "it's",
          "that's",
          "there's",
          "what's",
          "you're",
          "we're",
          "they're",
          "i've",
          "you've",
          "i'd",
          "i'll",
          "you'll",
          "we'll",
          "he",
          "she",
          "him",
          "her",
          "his",
          "hers",
          "myself",
          "yourself",
          "ourselves",
          "mine",
          "yours",
          "ours",
          "its",
          "am",
          "had",
          "did",
          "having",
          "has",
          "new",
          "big",
          "huge",
          "tons",
          "ton",
          "blast",
          "worth",
          "keen",
          "best",
          "better",
          "nice",
          "perfect",
          "wonderful",
          "crazy",
          "wild",
          "insane",
          "pumped",
          "stoked",
          "thrilled",
          "blessed",
          "lucky",
          "fortunate",
          "grateful",
          "journey",
          "moment",
          "moments",
          "memories",
          "memory",
          "experience",
          "experiences",
          "reminds",
          "remind",
          "reminded",
          "joy",
          "peace",
          "passion",
          "passionate",
          "dream",
          "dreams",
          "vibe",
          "vibes",
          "deal",
          "matter",
          "matters",
          "reason",
          "kind",
          "sort",
          "type",
          "stuff",
          "bunch",
          "part",
          "whole",
          "totally",
          "ready",
          "together",
          "anyway",
          "anyways",
          "maybe",
          "probably",
          "though",
          "although",
          "still",
          "yet",
          "already",
          "soon",
          "lately",
          "recently",
          "definitely",
          "especially",
          "mostly",
          "almost",
          "yours",
          "cheers",
          "ya",
          "yo",
          "yea",
          "huh",
          "um",
          "uh",
          "hmm",
          "haha",
          "lol",
          "omg",
          "wish",
          "luck",
          "congrats",
          "bye");

  /**
   * Words that tell no specific thing on their own: abstract nouns ("progress", "difference"),
   * verdicts ("rewarding", "scary"), light verbs ("give", "find", "keep") and function words that
   * are no stopwords ("those", "each"). A statement whose content words are all of these is a
   * sentiment, not a fact; names, places, numbers, activities and objects are what make one
   * specific.
   */
  static final Set<String> GENERIC =
      words(
          "difference",
          "differences",
          "impact",
          "effect",
          "effects",
          "kindness",
          "compassion",
          "positivity",
          "progress",
          "dedication",
          "effort",
          "efforts",
          "courage",
          "strength",
          "strengths",
          "determination",
          "success",
          "successes",
          "goal",
          "goals",
          "growth",
          "challenge",
          "challenges",
          "challenging",
          "opportunity",
          "opportunities",
          "encouragement",
          "reminder",
          "reminders",
          "gift",
          "reward",
          "rewards",
          "balance",
          "confidence",
          "patience",
          "perseverance",
          "resilience",
          "happiness",
          "beauty",
          "creativity",
          "care",
          "caring",
          "meaning",
          "meaningful",
          "purpose",
          "sense",
          "idea",
          "ideas",
          "vision",
          "adventure",
          "adventures",
          "ride",
          "process",
          "path",
          "step",
          "steps",
          "future",
          "past",
          "change",
          "changes",
          "power",
          "energy",
          "fulfillment",
          "fulfilment",
          "satisfaction",
          "connection",
          "connections",
          "bond",
          "bonds",
          "trust",
          "admiration",
          "respect",
          "pride",
          "doubt",
          "doubts",
          "fear",
          "fears",
          "stress",
          "pressure",
          "struggle",
          "struggles",
          "attitude",
          "mindset",
          "spirit",
          "heart",
          "soul",
          "mind",
          "comfort",
          "relief",
          "emotion",
          "emotions",
          "self",
          "lives",
          "situation",
          "situations",
          "part",
          "reason",
          "reasons",
          "chance",
          "chances",
          "outlook",
          "potential",
          "ability",
          "abilities",
          "skills",
          "talent",
          "hardship",
          "hardships",
          "obstacle",
          "obstacles",
          "setback",
          "setbacks",
          "victory",
          "achievement",
          "achievements",
          "accomplishment",
          "accomplishments",
          "habit",
          "habits",
          "mood",
          "feeling",
          "freedom",
          "importance",
          "understanding",
          "acceptance",
          "love",
          "kinds",
          "lot",
          "lots",
          "level",
          "levels",
          "bit",
          "rewarding",
          "fulfilling",
          "uplifting",
          "enjoyable",
          "satisfying",
          "frustrating",
          "refreshing",
          "heartwarming",
          "impressive",
          "impressed",
          "interesting",
          "positive",
          "negative",
          "strong",
          "safe",
          "free",
          "real",
          "full",
          "different",
          "bigger",
          "small",
          "smaller",
          "large",
          "serious",
          "delicious",
          "yum",
          "yummy",
          "fancy",
          "bright",
          "neat",
          "rough",
          "intense",
          "emotional",
          "empowering",
          "calming",
          "relaxing",
          "peaceful",
          "relaxed",
          "calm",
          "cozy",
          "comfortable",
          "fresh",
          "sad",
          "scary",
          "scared",
          "nervous",
          "worried",
          "stressed",
          "tired",
          "exhausted",
          "busy",
          "happier",
          "healthier",
          "stronger",
          "easier",
          "harder",
          "cool",
          "coolest",
          "greatest",
          "favorite",
          "favourite",
          "fave",
          "true",
          "real",
          "genuine",
          "honest",
          "whole",
          "entire",
          "unique",
          "similar",
          "certain",
          "various",
          "several",
          "possible",
          "impossible",
          "incredible",
          "awesome",
          "fantastic",
          "wonderful",
          "lovely",
          "great",
          "good",
          "bad",
          "nice",
          "give",
          "gives",
          "giving",
          "gave",
          "given",
          "bring",
          "brings",
          "bringing",
          "brought",
          "show",
          "shows",
          "showing",
          "showed",
          "find",
          "finds",
          "finding",
          "found",
          "stay",
          "stays",
          "staying",
          "stayed",
          "try",
          "tries",
          "trying",
          "tried",
          "reach",
          "reaching",
          "reached",
          "remember",
          "remembering",
          "cherish",
          "cherished",
          "motivate",
          "motivates",
          "motivating",
          "grow",
          "grows",
          "growing",
          "grew",
          "happen",
          "happens",
          "happening",
          "happened",
          "come",
          "comes",
          "coming",
          "came",
          "put",
          "puts",
          "putting",
          "figure",
          "figured",
          "encourage",
          "encourages",
          "encouraging",
          "encouraged",
          "supporting",
          "spread",
          "spreading",
          "achieve",
          "achieving",
          "achieved",
          "pursue",
          "pursuing",
          "push",
          "pushes",
          "pushing",
          "pushed",
          "quit",
          "celebrate",
          "celebrating",
          "continue",
          "continuing",
          "believe",
          "believes",
          "believing",
          "believed",
          "matter",
          "mattered",
          "work",
          "works",
          "working",
          "worked",
          "use",
          "using",
          "used",
          "start",
          "starting",
          "started",
          "end",
          "ending",
          "ended",
          "keep",
          "keeping",
          "seem",
          "seemed",
          "become",
          "becomes",
          "becoming",
          "became",
          "learn",
          "learns",
          "learning",
          "learned",
          "learnt",
          "appreciate",
          "appreciating",
          "realize",
          "realized",
          "understand",
          "understood",
          "deserve",
          "deserves",
          "handle",
          "handled",
          "manage",
          "managed",
          "stick",
          "sticking",
          "able",
          "unable",
          "those",
          "each",
          "both",
          "every",
          "ones",
          "around",
          "through",
          "after",
          "before",
          "since",
          "down",
          "forward",
          "themselves",
          "sometimes",
          "hopefully",
          "long",
          "far",
          "often",
          "while",
          "during",
          "throughout",
          "without",
          "within",
          "toward",
          "towards",
          "among",
          "everybody",
          "somebody",
          "nobody",
          "somewhere",
          "anywhere",
          "everywhere",
          "whatever",
          "whenever",
          "however",
          "photo",
          "photos",
          "photography",
          "picture",
          "pictures",
          "pic",
          "pics",
          "image",
          "images");

  /** {@link #GENERIC} in Chinese: feelings, verdicts and abstractions, removed before counting. */
  static final Pattern GENERIC_ZH =
      Pattern.compile(
          "开心|高兴|难过|伤心|感动|厉害|辛苦|加油|努力|支持|鼓励|进步|成功|希望|梦想|意义|感谢|幸福|快乐|美好|重要|有趣|精彩|好玩"
              + "|放松|舒服|温暖|压力|紧张|激动|兴奋|担心|害怕|喜欢|感受|心情|经历|体验|东西|事情|时候|时间|一切|大家|生活|世界"
              + "|坚持|相信|继续|开始|帮助|分享|照片|图片|今天|明天|昨天|现在|最近|有点|一点|一下|累|忙");

  /**
   * A turn that shows the speaker's own thing with its image: "Here's my painting", "This is what I
   * made", "Check it out", "Take a look at this", "这是我画的".
   */
  static final Pattern ATTACHMENTS =
      Pattern.compile(
          "[\\[(](?:image|photo|picture|pic|shares?|shared|attachment|图片|照片)(?![A-Za-z])[^\\])]*[\\])]");

  static final Pattern PRESENTS =
      Pattern.compile(
          "(?i)\\b(?:"
              + String.join(
                  "|",
                  "here(?:'s|s| is| are)",
                  "here (?:it|they) (?:is|are|go)",
                  "this is (?:my|our|what|how|where|the one|it|mine)",
                  "these are (?:my|our|mine|ours|the ones)",
                  "(?:check|look at) (?:it|this|these|them|that|those|out)",
                  "take a look",
                  "have a look",
                  "look what",
                  "(?:i|we|i've|we've) (?:just"
                      + " )?(?:made|painted|drew|took|built|baked|cooked|knitted"
                      + "|wrote|designed|got|bought|found|did|finished|created|planted|grew)"
                      + " (?:this|these|it|them)",
                  "(?:this|these|that|those) (?:is|are) (?:all )?(?:mine|ours)",
                  "(?:pic|picture|photo|shot|snap)s? (?:i|we) (?:took|got|made)",
                  "(?:pic|picture|photo|shot|snap)s? of (?:my|our|me|us)")
              + ")\\b"
              + "|这是我|这些是我|这就是我|看看这个|看看我|给你看|你看这|我拍的|我画的|我做的|我买的|我写的|我种的");

  /** Advice and exhortation between people: "Let's ...", "Don't give up", "Keep it up". */
  static final Pattern EXHORTATION =
      Pattern.compile(
          "(?i)^(?:let's|let us|lets|never give up|keep (?:going|it up|pushing|at"
              + " it|up|on|rocking|shining|trying|believing|doing|chasing|working|fighting|me"
              + " posted)|hang in|believe in|don't (?:give"
              + " up|worry|let|stop|forget|be|hesitate|lose)|do not (?:give up|worry|let|stop)|stay"
              + " (?:positive|strong|focused|motivated|safe|tuned|hopeful|true)|remember"
              + " (?:that|to|,)|take (?:a look|care|it easy)|check (?:it|this|that|them|'em)"
              + " out|trust (?:me|yourself|the process)|try (?:it|this|to)|go for it|make sure|you"
              + " should|you can|you will|you'll|you deserve|you got|you've got|here's to|good for"
              + " you|imagine|think about|be (?:proud|kind|yourself|sure|careful|brave))\\b");

  /** A verdict on something: "X is so awesome", "They look cute". */
  static final Pattern EVALUATION =
      Pattern.compile(
          "(?i)\\b(?:is|are|was|were|looks?|looked|sounds?|sounded|seems?|seemed|must be|must have"
              + " been)\\s+"
              + "(?:(?:so|really|super|totally|just|very|pretty|truly|such|incredibly|absolutely|amazingly"
              + "|simply|quite|always)\\s+)*(?:a\\s+|an\\s+)?(?:(?:great|good|real|total)\\s+)?(?:awesome|amazing|great|cool|cute|nice|lovely|beautiful"
              + "|wonderful|incredible|fantastic|sweet|adorable|gorgeous|impressive|inspiring|key|important"
              + "|vital|essential|crucial|special|powerful|fun|fulfilling|rewarding|exciting|brave|strong"
              + "|awesome|stunning|breathtaking|peaceful|relaxing|hilarious|funny|inspirational|magical"
              + "|perfect|tough|hard|rough|scary|challenging|unreal|blast|dream|must|priceless|huge)\\b");

  /** Words that make a statement uncertain: lower credibility. */
  static final Pattern HEDGE =
      Pattern.compile(
          "(?i)\\b(?:maybe|perhaps|probably|possibly|might|i think|i guess|not sure|i'm not sure|i"
              + " suppose|kind of|sort of|i believe|seems like|apparently)\\b|可能|也许|大概|好像|似乎|不确定");

  /** States bound to the present moment: short-term. */
  static final Pattern SHORT_TERM =
      Pattern.compile(
          "(?i)\\b(?:today|tonight|this (?:morning|afternoon|evening|week)|right now|at the moment"
              + "|currently|for now|this session|these days)\\b|今天|今晚|现在|此刻|目前|这周|本周|这会儿");

  /** Words of the first person. */
  static final Pattern FIRST_PERSON_EN =
      Pattern.compile(
          "(?i)\\b(?:i|me|my|mine|myself|we|us|our|ours|ourselves|i'm|im|i've|i'd|i'll|we're|we've|we'll|we'd)\\b");

  /** Words of the first person singular. */
  static final Pattern FIRST_PERSON_SINGULAR_EN =
      Pattern.compile("(?i)\\b(?:i|me|my|mine|myself|i'm|im|i've|i'd|i'll)\\b");

  /** A sentence that begins with its verb, its subject (the speaker) left out. */
  static final Pattern ELIDED_SUBJECT =
      Pattern.compile(
          "(?i)^(?:gonna|going to|just (?:got|had|finished|started|did|made|bought|went|came|found|"
              + "signed|joined|moved|booked|adopted|painted|ran|took|watched|read|tried|saw|visited|"
              + "learned|picked|won|hit|wrapped|launched|received|completed|graduated|wrote|met|"
              + "celebrated|returned|started)|been|got|had|went|made|took|started|finished|bought|"
              + "found|spent|tried|learned|visited|joined|signed|picked|met|ran|did|love|loved|thinking|working|planning|trying|hoping|looking|heading|off"
              + " to|can't wait|cant wait|wanna|gotta|need"
              + " to|needed|feeling|felt|doing|taking|getting|saw|watched|read|"
              + "finally|recently|currently|still)\\b");
}
