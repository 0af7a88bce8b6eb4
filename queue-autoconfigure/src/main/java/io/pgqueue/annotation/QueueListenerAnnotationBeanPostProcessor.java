package io.pgqueue.annotation;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import io.pgqueue.config.ListenerEndpoint;
import io.pgqueue.config.QueueListenerContainerRegistry;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.support.AopUtils;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.StringUtils;

/**
 * Finds {@code @QueueListener} methods and, once every singleton exists, registers them with the
 * {@link QueueListenerContainerRegistry}. It touches no database and pulls no infrastructure bean in early.
 */
public class QueueListenerAnnotationBeanPostProcessor
        implements BeanPostProcessor, SmartInitializingSingleton, BeanFactoryAware {

    private final Set<Class<?>> classesWithoutListeners = ConcurrentHashMap.newKeySet();

    private final List<ListenerEndpoint> endpoints = new ArrayList<>();

    private @Nullable ConfigurableBeanFactory beanFactory;

    @Override
    public void setBeanFactory(BeanFactory beanFactory) {
        if (beanFactory instanceof ConfigurableBeanFactory configurable) {
            this.beanFactory = configurable;
        }
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) throws BeansException {
        Class<?> targetClass = AopUtils.getTargetClass(bean);
        if (classesWithoutListeners.contains(targetClass)) {
            return bean;
        }
        Map<Method, QueueListener> annotated = MethodIntrospector.selectMethods(targetClass,
                (MethodIntrospector.MetadataLookup<QueueListener>) (method) -> AnnotatedElementUtils
                    .findMergedAnnotation(method, QueueListener.class));
        if (annotated.isEmpty()) {
            classesWithoutListeners.add(targetClass);
            return bean;
        }
        annotated.forEach((method, listener) -> {
            Method invocable = AopUtils.selectInvocableMethod(method, bean.getClass());
            synchronized (endpoints) {
                endpoints.add(new ListenerEndpoint(bean, invocable, resolve(listener.queue()), optional(listener.id()),
                        optional(listener.concurrency()), optional(listener.mode()), optional(listener.batchSize()),
                        optional(listener.maxAttempts()), optional(listener.timeout())));
            }
        });
        return bean;
    }

    @Override
    public void afterSingletonsInstantiated() {
        List<ListenerEndpoint> found;
        synchronized (endpoints) {
            found = List.copyOf(endpoints);
            endpoints.clear();
        }
        if (found.isEmpty() || beanFactory == null) {
            return;
        }
        QueueListenerContainerRegistry registry = beanFactory.getBean(QueueListenerContainerRegistry.class);
        found.forEach(registry::register);
    }

    private @Nullable String optional(String value) {
        return StringUtils.hasText(value) ? resolve(value) : null;
    }

    private String resolve(String value) {
        String resolved = (beanFactory != null) ? beanFactory.resolveEmbeddedValue(value) : value;
        return (resolved != null) ? resolved.trim() : value;
    }
}
