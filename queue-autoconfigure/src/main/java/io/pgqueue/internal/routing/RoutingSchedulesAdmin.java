package io.pgqueue.internal.routing;

import java.time.Duration;
import java.util.List;

import io.pgqueue.admin.QueueAdmin;
import io.pgqueue.admin.SchedulesAdmin;
import io.pgqueue.model.ScheduleInfo;

/**
 * Recurring jobs across databases: a name goes to the database that has it.
 */
final class RoutingSchedulesAdmin implements SchedulesAdmin {

    private final AdminRoutes routes;

    RoutingSchedulesAdmin(AdminRoutes routes) {
        this.routes = routes;
    }

    @Override
    public List<ScheduleInfo> schedules() {
        return routes.all(QueueAdmin::schedules);
    }

    @Override
    public boolean removeSchedule(String name) {
        return routes.firstFound((admin) -> admin.removeSchedule(name), Boolean::booleanValue);
    }

    @Override
    public void pauseSchedule(String name) {
        routes.schedule(name).pauseSchedule(name);
    }

    @Override
    public void resumeSchedule(String name) {
        routes.schedule(name).resumeSchedule(name);
    }

    @Override
    public boolean triggerSchedule(String name) {
        return routes.schedule(name).triggerSchedule(name);
    }

    @Override
    public void rescheduleCron(String name, String cron) {
        routes.schedule(name).rescheduleCron(name, cron);
    }

    @Override
    public void rescheduleFixedRate(String name, Duration fixedRate) {
        routes.schedule(name).rescheduleFixedRate(name, fixedRate);
    }
}
