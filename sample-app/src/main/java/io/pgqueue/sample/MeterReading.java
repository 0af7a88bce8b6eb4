package io.pgqueue.sample;

import java.math.BigDecimal;

/**
 * A meter reading sent by a smart meter.
 *
 * @param accountId the customer account
 * @param kwh energy used since the last reading
 */
public record MeterReading(long accountId, BigDecimal kwh) {
}
