/**
 * Workflows: graphs of jobs that wait for other jobs, submitted in the caller's transaction, with outputs
 * handed on and a policy for parents that fail.
 */
@NullMarked
package io.pgqueue.workflow;

import org.jspecify.annotations.NullMarked;
