/**
 * Small shared building blocks with no knowledge of jobs (periodic background tasks). Depends on nothing
 * of pgqueue.
 */
@NullMarked
package io.pgqueue.support;

import org.jspecify.annotations.NullMarked;
