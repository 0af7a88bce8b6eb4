package io.pgqueue.autoconfigure.aot;

import java.util.List;

import io.pgqueue.actuate.PgQueueEndpoint;
import io.pgqueue.annotation.QueueListener;
import io.pgqueue.listener.JobContext;
import org.junit.jupiter.api.Test;

import org.springframework.aot.generate.ClassNameGenerator;
import org.springframework.aot.generate.DefaultGenerationContext;
import org.springframework.aot.generate.InMemoryGeneratedFiles;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.beans.factory.aot.BeanRegistrationAotContribution;
import org.springframework.beans.factory.aot.BeanRegistrationAotProcessor;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.beans.factory.support.RegisteredBean;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.core.io.support.SpringFactoriesLoader;
import org.springframework.javapoet.ClassName;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The hints a native image needs: pgqueue's migrations and JSON types, and for every listener bean its
 * methods (invoked by reflection) and its payload and return types (read and written as JSON).
 */
class RuntimeHintsTests {

    record Shipment(String id, Address to) {
    }

    record Address(String city) {
    }

    record Label(String code) {
    }

    static class ShippingListener {

        @QueueListener(queue = "shipments")
        Label ship(Shipment shipment, JobContext job) {
            return new Label(shipment.id());
        }

        @QueueListener(queue = "shipment-batches")
        void shipAll(List<Shipment> shipments) {
        }
    }

    static class NotAListener {

        void ship(Shipment shipment) {
        }
    }

    @Test
    void migrationsAndJsonTypesAreRegistered() {
        RuntimeHints hints = new RuntimeHints();
        new PgQueueRuntimeHints().registerHints(hints, getClass().getClassLoader());
        assertThat(RuntimeHintsPredicates.resource().forResource("io/pgqueue/db/migration/V1__create_queue_tables.sql"))
            .accepts(hints);
        assertThat(RuntimeHintsPredicates.resource().forResource("io/pgqueue/db/migration/V6__job_control.sql"))
            .accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onType(PgQueueEndpoint.JobDescriptor.class)).accepts(hints);
    }

    @Test
    void aListenerBeansMethodsAndPayloadTypesAreRegisteredByTheAotProcessor() {
        BeanRegistrationAotProcessor processor = SpringFactoriesLoader.forResourceLocation("META-INF/spring/aot.factories")
            .load(BeanRegistrationAotProcessor.class)
            .stream()
            .filter(QueueListenerBeanRegistrationAotProcessor.class::isInstance)
            .findFirst()
            .orElseThrow();
        DefaultGenerationContext generation = new DefaultGenerationContext(
                new ClassNameGenerator(ClassName.get("com.example", "Application")), new InMemoryGeneratedFiles());

        BeanRegistrationAotContribution contribution = processor.processAheadOfTime(registered(ShippingListener.class));
        assertThat(contribution).isNotNull();
        contribution.applyTo(generation, null);

        RuntimeHints hints = generation.getRuntimeHints();
        assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(ShippingListener.class, "ship")).accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(ShippingListener.class, "shipAll"))
            .accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onType(Shipment.class)).accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onType(Address.class)).as("nested payload type").accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onType(Label.class)).as("output type").accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onType(JobContext.class)).rejects(hints);

        assertThat(processor.processAheadOfTime(registered(NotAListener.class))).isNull();
    }

    private static RegisteredBean registered(Class<?> type) {
        DefaultListableBeanFactory beanFactory = new DefaultListableBeanFactory();
        beanFactory.registerBeanDefinition("bean", new RootBeanDefinition(type));
        return RegisteredBean.of(beanFactory, "bean");
    }
}
