/**
 * Batches: sets of jobs with callbacks that fire exactly once ({@link io.pgqueue.batch.BatchOperations}).
 */
@NullMarked
package io.pgqueue.batch;

import org.jspecify.annotations.NullMarked;
