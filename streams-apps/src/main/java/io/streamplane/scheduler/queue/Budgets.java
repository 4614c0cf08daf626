package io.streamplane.scheduler.queue;

import io.streamplane.api.PodDisruptionBudget;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The PodDisruptionBudgets a scheduler instance knows, for its preemption: those of its pod
 * partitions' share of {@code events} (each queue task keeps its own in a store, and puts them here
 * on start), shared by all its queue tasks as kube-scheduler's PDB lister is. One scheduler
 * instance owns every partition, so it knows every budget; with several, each knows those of its
 * partitions only. Thread-safe; {@link #all} is in key order, so a decision does not depend on
 * arrival order.
 */
public final class Budgets {

  private final Map<String, PodDisruptionBudget> budgets = new TreeMap<>();

  public synchronized void put(String key, PodDisruptionBudget budget) {
    budgets.put(key, budget);
  }

  public synchronized void remove(String key) {
    budgets.remove(key);
  }

  public synchronized List<PodDisruptionBudget> all() {
    return List.copyOf(budgets.values());
  }
}
