@NullMarked
package io.pgqueue.maintenance;

import org.jspecify.annotations.NullMarked;
