package dev.memsidecar.core.maintenance;

/**
 * One independent piece of background maintenance ({@code memory.maintenance}): the records of the
 * LangMem path, the memory files, the sidecar's own tables, and so on. The {@link
 * MaintenanceService} runs every registered target on the shared schedule and on {@code
 * AdminService.RunMaintenance}, each on its own thread, so that one failing or slow target never
 * holds up another; it keeps each target's last run and emits {@code maintenance.completed} or
 * {@code maintenance.failed} for it.
 *
 * <p>A target is registered in {@code CoreModule} with one line (a {@code Multibinder} binding);
 * its name is then valid in {@code memory.maintenance.targets} and in RunMaintenance.
 *
 * <p>Implementations must be thread-safe: the service never runs one target twice at once, but runs
 * different targets at the same time as requests are served. A pass must leave the stores
 * consistent if the process dies at any point of it ({@code kill -9}): write what replaces a thing
 * before removing the thing.
 */
public interface MaintenanceTarget {
  /** What the target is called: lower case, e.g. {@code langmem}; unique among the targets. */
  String name();

  /**
   * Runs one pass. Counts what it did with {@link MaintenancePass#add} as it goes (so a failed pass
   * still reports what it had done), checks {@link MaintenancePass#checkStopped} between pieces of
   * work, and throws to fail the pass; the message of what it throws is the reason reported.
   */
  void run(MaintenancePass pass) throws Exception;
}
