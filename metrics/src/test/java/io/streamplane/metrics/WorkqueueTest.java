package io.streamplane.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class WorkqueueTest {

  @Test
  void addsStartsAndFinishedWorkShowAsClientGoWorkqueueMetrics() {
    Workqueue queue = Workqueue.named("test-reconciles");

    long first = queue.added();
    queue.added();
    try (Workqueue.Work work = queue.started(first)) {
      queue.retried();
    }

    ScrapedMetrics scraped = ScrapedMetrics.scrape();
    assertThat(scraped.value("workqueue_adds_total", "name", "test-reconciles")).isEqualTo(2);
    assertThat(scraped.value("workqueue_depth", "name", "test-reconciles")).isEqualTo(1);
    assertThat(scraped.value("workqueue_retries_total", "name", "test-reconciles")).isEqualTo(1);
    assertThat(scraped.value("workqueue_queue_duration_seconds_count", "name", "test-reconciles"))
        .isEqualTo(1);
    assertThat(scraped.value("workqueue_work_duration_seconds_count", "name", "test-reconciles"))
        .isEqualTo(1);
    assertThat(
            scraped.has(
                "workqueue_work_duration_seconds_bucket", "name", "test-reconciles", "le", "10.0"))
        .isTrue();
  }

  @Test
  void droppedItemsLeaveTheDepthAndTheSameNameIsOneQueue() {
    Workqueue.named("test-dropped").added();
    Workqueue.named("test-dropped").added();

    Workqueue.named("test-dropped").dropped(2);

    assertThat(Workqueue.named("test-dropped")).isSameAs(Workqueue.named("test-dropped"));
    ScrapedMetrics scraped = ScrapedMetrics.scrape();
    assertThat(scraped.value("workqueue_depth", "name", "test-dropped")).isZero();
    assertThat(scraped.value("workqueue_adds_total", "name", "test-dropped")).isEqualTo(2);
  }
}
