/**
 * Configuring listeners: the registry that holds every listener container, the factory that creates them, and
 * the endpoints ({@code @QueueListener} methods) they are created for.
 */
@NullMarked
package io.pgqueue.config;

import org.jspecify.annotations.NullMarked;

