/**
 * Several databases behind one API: the units (one per PostgreSQL database, each with its own repositories,
 * wake-ups, node membership and maintenance), the router that maps a queue or an id to its unit, and the
 * routing template, admin and listener registry that the application sees when more than one database is
 * configured. With one database none of this is built.
 */
@NullMarked
package io.pgqueue.internal.routing;

import org.jspecify.annotations.NullMarked;
