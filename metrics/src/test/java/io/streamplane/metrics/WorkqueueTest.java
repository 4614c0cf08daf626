package io.streamplane.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class WorkqueueTest {

  @Test
  void addsWaitsWorkAndRetriesShowAsClientGoWorkqueueMetrics() {
    Workqueue queue = Workqueue.named("test-reconciles");

    long first = queue.added();
    queue.added();
    try (Workqueue.Work work = queue.started(first)) {
      queue.retried();
    }
    try (Workqueue.Work restored = queue.started()) {
      // a key restored after a restart: its work is timed, its wait is unknown
    }

    ScrapedMetrics scraped = ScrapedMetrics.scrape();
    assertThat(scraped.value("workqueue_adds_total", "name", "test-reconciles")).isEqualTo(2);
    assertThat(scraped.value("workqueue_retries_total", "name", "test-reconciles")).isEqualTo(1);
    assertThat(scraped.value("workqueue_queue_duration_seconds_count", "name", "test-reconciles"))
        .isEqualTo(1);
    assertThat(scraped.value("workqueue_work_duration_seconds_count", "name", "test-reconciles"))
        .isEqualTo(2);
    assertThat(
            scraped.has(
                "workqueue_work_duration_seconds_bucket", "name", "test-reconciles", "le", "10.0"))
        .isTrue();
  }

  @Test
  void theDepthIsTheSumOfTheTrackedQueuesAtTheScrape() {
    AtomicInteger task0 = new AtomicInteger(3);
    AtomicInteger task1 = new AtomicInteger(4);
    Workqueue queue = Workqueue.named("test-depth");

    try (Workqueue.Tracked first = queue.trackDepth(task0::get)) {
      Workqueue.Tracked second = Workqueue.named("test-depth").trackDepth(task1::get);
      assertThat(ScrapedMetrics.scrape().value("workqueue_depth", "name", "test-depth"))
          .isEqualTo(7);

      task0.set(1);
      second.close();

      assertThat(ScrapedMetrics.scrape().value("workqueue_depth", "name", "test-depth"))
          .isEqualTo(1);
    }
    assertThat(ScrapedMetrics.scrape().value("workqueue_depth", "name", "test-depth")).isZero();
    assertThat(Workqueue.named("test-depth")).isSameAs(queue);
  }
}
