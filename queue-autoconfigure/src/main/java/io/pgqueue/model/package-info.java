/**
 * The plain records and values applications read: job states, jobs and pages of jobs, queue counts and stats,
 * cluster nodes and their containers, recurring jobs, the results of sends and cancellations, and queue names.
 * Imports nothing else of pgqueue.
 */
@NullMarked
package io.pgqueue.model;

import org.jspecify.annotations.NullMarked;

