package dev.memsidecar.core.maintenance;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.core.skills.SkillMiner;
import jakarta.inject.Inject;
import java.util.List;

/**
 * The maintenance daemon's {@value #NAME} target: the skill-candidate miner over every workspace
 * with runs ({@link SkillMiner#mine}), counting what it found ({@link SkillMiner.Counts}).
 */
public final class SkillsTarget implements MaintenanceTarget {
  public static final String NAME = "skills";

  private final SkillMiner miner;

  @Inject
  public SkillsTarget(SkillMiner miner) {
    this.miner = requireNonNull(miner, "miner is null");
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public void run(MaintenancePass pass) {
    miner.mine(List.of()).asMap().forEach((k, v) -> pass.add(k, Long.parseLong(v)));
  }
}
