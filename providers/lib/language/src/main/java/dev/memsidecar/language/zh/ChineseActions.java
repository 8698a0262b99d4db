package dev.memsidecar.language.zh;

import dev.memsidecar.language.tool.ToolActions;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * The Chinese words of the acts ({@link ToolActions}): a verb and the objects that make it an act
 * (删除 + 文件: {@code delete-files}; 删除 + 数据库: {@code drop-tables}; 安装 + 软件包: {@code
 * install-packages}), and the act a verb means alone (推送, 部署). Read by {@link ChineseProhibitions}.
 * Immutable and thread-safe.
 */
final class ChineseActions {
  /**
   * A verb's acts.
   *
   * @param text the verb
   * @param byObject the act each object word makes of it, longest word first
   * @param alone the act of the verb without an object, or empty
   */
  record Verb(String text, List<Map.Entry<String, String>> byObject, String alone) {}

  /** Every verb, longest first (so 强制推送 wins over 推送 where both start). */
  static final List<Verb> VERBS;

  /** Words between a verb and its object that narrow nothing: 删除<b>所有的</b>文件. */
  static final List<String> DETERMINERS =
      List.of(
          "所有的", "所有", "任何的", "任何", "全部的", "全部", "一切", "这些", "那些", "这个", "那个", "一些", "的", "掉", "了",
          "个", "些", "新的", "新", "其他", "别的");

  private static final String FILES = "文件夹 文件 目录 东西 任何东西";
  private static final String TABLES = "数据库 数据表 表格 表 库 集合 索引";
  private static final String ROWS = "数据 记录 行";
  private static final String PACKAGES = "软件包 依赖包 依赖 包 库 软件 插件 程序 模块 工具 应用";
  private static final String DISKS = "磁盘 硬盘 分区 U盘 驱动器";

  private static final List<Verb> BUILDING = new ArrayList<>();

  static {
    for (String v : List.of("删除", "删掉", "删", "移除", "清除", "清空", "粉碎")) {
      verb(v, "delete-files", TABLES, "drop-tables", FILES, "delete-files", ROWS, "delete-rows");
    }
    verb("删表", "drop-tables");
    verb("删库", "drop-tables");
    verb("清库", "drop-tables");
    verb("格式化", "", DISKS, "format-disk");
    for (String v : List.of("修改", "编辑", "改动", "改写", "覆盖", "写入")) {
      verb(
          v,
          v.equals("覆盖") || v.equals("写入") ? "write-files" : "",
          FILES + " 代码 配置",
          "write-files",
          "权限",
          "change-permissions");
    }
    verb("移动", "move-files", FILES, "move-files");
    verb("重命名", "move-files", FILES, "move-files");
    verb("安装", "install-packages", PACKAGES, "install-packages");
    verb("添加依赖", "install-packages");
    verb("强制推送", "force-push");
    verb("强推", "force-push");
    verb("推送", "push");
    verb("提交代码", "commit");
    verb("提交", "commit");
    verb("合并", "merge");
    for (String v : List.of("部署", "上线", "发布")) {
      verb(v, "deploy");
    }
    for (String v : List.of("发邮件", "发送邮件", "发电邮", "写邮件")) {
      verb(v, "send-email");
    }
    verb("重启", "", "服务器 机器 电脑 主机 系统", "reboot");
    verb("关机", "reboot");
    for (String v : List.of("杀掉", "杀死", "杀", "结束", "终止")) {
      verb(v, "", "进程 任务", "kill-processes");
    }
    verb("下载", "download");
    BUILDING.sort(Comparator.comparingInt((Verb w) -> w.text().length()).reversed());
    VERBS = List.copyOf(BUILDING);
    for (Verb v : VERBS) {
      v.byObject().forEach(e -> check(e.getValue()));
      if (!v.alone().isEmpty()) {
        check(v.alone());
      }
    }
  }

  private ChineseActions() {}

  private static void check(String act) {
    if (ToolActions.of(act).isEmpty()) {
      throw new IllegalStateException("no act " + act);
    }
  }

  private static void verb(String verb, String alone, String... objectsAndActs) {
    List<Map.Entry<String, String>> byObject = new ArrayList<>();
    for (int i = 0; i + 1 < objectsAndActs.length; i += 2) {
      for (String object : objectsAndActs[i].split(" ")) {
        byObject.add(Map.entry(object, objectsAndActs[i + 1]));
      }
    }
    byObject.sort(
        Comparator.comparingInt((Map.Entry<String, String> e) -> e.getKey().length()).reversed());
    BUILDING.add(new Verb(verb, List.copyOf(byObject), alone));
  }
}
