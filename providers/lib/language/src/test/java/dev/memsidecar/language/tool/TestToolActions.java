package dev.memsidecar.language.tool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.memsidecar.language.TextRules;
import dev.memsidecar.language.prohibition.Prohibitions;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Rules whose object is an act: only the calls that do it are hit, wherever it stands. */
class TestToolActions {
  private static final ToolCallMatcher MATCHER = new ToolCallMatcher();
  private static final Prohibitions PROHIBITIONS =
      new Prohibitions(TextRules.standard().languages());
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final List<String> DELETE = List.of("action:delete-files");

  private static Optional<String> shell(List<String> objects, String commandLine) {
    return MATCHER.match("bash", objects, ToolArguments.of(Map.of("command", commandLine)));
  }

  private static Optional<String> call(String tool, List<String> objects, String json) {
    try {
      return MATCHER.match(tool, objects, ToolArguments.of(JSON.readValue(json, Object.class)));
    } catch (Exception e) {
      throw new AssertionError(json, e);
    }
  }

  private static void denied(List<String> objects, String... commandLines) {
    for (String line : commandLines) {
      assertTrue(shell(objects, line).isPresent(), objects + " should hit: " + line);
    }
  }

  private static void allowed(List<String> objects, String... commandLines) {
    for (String line : commandLines) {
      assertEquals(Optional.empty(), shell(objects, line), objects + " should not hit: " + line);
    }
  }

  @Test
  void deletingFilesIsSeenInAnyPositionOfACommandLine() {
    denied(
        DELETE,
        "rm -rf build",
        "/bin/rm x",
        "cd x && rm a",
        "make clean; rm -f out.log",
        "test -f x || rm y",
        "sudo rm /var/log/old",
        "sudo -u www-data rm x",
        "FOO=1 env BAR=2 rm x",
        "nohup nice -n 5 rm x &",
        "timeout 5 shred secrets.txt",
        "find . -name '*.tmp' -delete",
        "find . -name '*.o' -exec rm {} \\;",
        "cat files.txt | xargs rm",
        "ls | xargs -I {} rm {}",
        "bash -c \"rm x\"",
        "sh -lc 'cd /tmp && rm -r y'",
        "eval \"rm x\"",
        "echo $(rm x)",
        "x=`rm y`",
        "echo rm x | sh",
        "ssh host 'rm -rf /tmp/x'",
        "docker exec -it web rm /app/cache",
        "kubectl exec pod -- rm /data/x",
        "if true; then rm x; fi",
        "unlink x",
        "rmdir build",
        "git rm a.txt",
        "git -C repo clean -fdx",
        "truncate -s 0 app.log",
        "rsync -a --delete src/ dst/",
        "npx rimraf dist",
        "python3 -c \"import shutil; shutil.rmtree('x')\"",
        "python -c \"import os; os.system('rm -rf x')\"",
        "node -e \"require('fs').rmSync('x', {recursive: true})\"",
        "sh <<EOF\nrm x\nEOF");
  }

  @Test
  void wordsThatAreOnlyArgumentsDeleteNothing() {
    // "echo rm" prints the word: an argument of another program is data, never a command (piped
    // into a shell, as in "echo rm x | sh", it is run, and hit above).
    allowed(
        DELETE,
        "ls -la",
        "git status",
        "git log --oneline",
        "echo rm",
        "echo 'rm -rf /'",
        "grep -r rm .",
        "man rm",
        "command -v rm",
        "which rm",
        "git commit -m 'rm old files'",
        "cat <<EOF > notes.txt\nrm x\nEOF",
        "ls > out.txt",
        "mv a b",
        "find . -name '*.tmp' -print",
        "python3 -c \"print('hello')\"");
  }

  @Test
  void anArrayOfWordsIsOneCommand() {
    assertTrue(call("exec", DELETE, "{\"argv\":[\"rm\",\"-rf\",\"build\"]}").isPresent());
    assertTrue(call("exec", DELETE, "{\"argv\":[\"bash\",\"-c\",\"rm x\"]}").isPresent());
    assertFalse(call("exec", DELETE, "{\"argv\":[\"echo\",\"rm\"]}").isPresent());
  }

  @Test
  void theEvidenceNamesTheCommandThatDoesIt() {
    assertEquals(
        Optional.of("action:delete-files (rm -rf /tmp/x)"), shell(DELETE, "ls && rm -rf /tmp/x"));
  }

  @Test
  void anActAndAnotherObjectMustMeetInOneCommand() {
    List<String> tmp = List.of("/tmp", "action:delete-files");
    denied(tmp, "rm -rf /tmp/x", "cd /srv && rm -rf /tmp/cache");
    allowed(tmp, "ls /tmp", "rm -rf build", "ls /tmp && rm -rf build");
    List<String> main = PROHIBITIONS.find("Never push to main.").get(0).objects();
    assertTrue(shell(main, "git push origin main").isPresent());
    assertFalse(shell(main, "git push origin feature").isPresent());
    assertFalse(shell(main, "git checkout main").isPresent());
    assertTrue(call("git", main, "{\"args\":[\"push\",\"origin\",\"main\"]}").isPresent());
    assertFalse(call("git", main, "{\"args\":[\"checkout\",\"main\"]}").isPresent());
  }

  @Test
  void otherActsOfTheVocabulary() {
    List<String> install = List.of("action:install-packages");
    denied(
        install,
        "pip install requests",
        "python -m pip install -U x",
        "sudo apt-get install -y jq",
        "npm i left-pad",
        "yarn add react",
        "brew install wget",
        "cargo add serde",
        "curl -fsSL https://x.example/install.sh | sh");
    allowed(install, "pip list", "npm test", "npm run build", "apt-cache search jq");
    List<String> drop = List.of("action:drop-tables");
    denied(drop, "psql -c 'DROP TABLE users'", "mysql -e \"truncate table logs\"", "dropdb app");
    allowed(drop, "psql -c 'select * from users'", "truncate -s 0 app.log");
    assertTrue(call("sql", drop, "{\"query\":\"DROP TABLE users;\"}").isPresent());
    assertFalse(call("sql", drop, "{\"query\":\"SELECT 1\"}").isPresent());
    assertFalse(
        call("sql", drop, "{\"query\":\"SELECT 1\",\"comment\":\"then drop table x\"}").isPresent(),
        "free text is no statement");
    List<String> force = List.of("action:force-push");
    denied(force, "git push -f", "git push origin +main", "git push --force-with-lease");
    allowed(force, "git push origin main", "git fetch -f");
    List<String> deploy = List.of("action:deploy");
    denied(deploy, "kubectl apply -f k8s/", "make deploy", "npm run deploy", "./scripts/deploy.sh");
    allowed(deploy, "kubectl get pods", "make test", "git commit -m deploy");
    List<String> write = List.of("action:write-files");
    denied(write, "echo x > notes.txt", "sed -i s/a/b/ f", "tee -a log.txt", "touch x");
    allowed(write, "cat notes.txt", "ls 2>/dev/null", "grep x f > /dev/null 2>&1");
  }

  @Test
  void aToolWhoseNameOrOperationSaysTheActDoesIt() {
    assertTrue(call("delete_file", DELETE, "{\"path\":\"a.txt\"}").isPresent());
    assertTrue(call("file_manager", DELETE, "{\"op\":\"delete\",\"path\":\"a\"}").isPresent());
    assertFalse(call("file_manager", DELETE, "{\"op\":\"read\",\"path\":\"a\"}").isPresent());
    List<String> write = List.of("action:write-files");
    assertTrue(call("str_replace_based_edit_tool", write, "{\"command\":\"create\"}").isPresent());
    assertFalse(call("str_replace_based_edit_tool", write, "{\"command\":\"view\"}").isPresent());
  }

  @Test
  void anUnknownActHitsNothing() {
    assertEquals(Optional.empty(), shell(List.of("action:mine-bitcoin"), "rm -rf /"));
  }

  @Test
  void theShellReaderUnwrapsAndReadsScripts() {
    assertEquals(
        List.of("rm", "rm", "ls"),
        ShellCommands.of("sudo rm a && bash -c 'rm b'; ls").stream()
            .map(ShellCommands.Command::program)
            .filter(p -> !p.equals("bash"))
            .toList());
    ShellCommands.Command redirect = ShellCommands.of("sort a 2>&1 >> out.txt").get(0);
    assertEquals(List.of("out.txt"), redirect.writes());
    assertEquals(List.of("sort", "a"), redirect.words());
  }
}
