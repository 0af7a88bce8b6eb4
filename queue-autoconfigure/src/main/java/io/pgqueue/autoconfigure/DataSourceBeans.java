package io.pgqueue.autoconfigure;

import javax.sql.DataSource;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;

/** The DataSource beans pgqueue's properties name ({@code data-source}, {@code notify-data-source}). */
final class DataSourceBeans {

    private DataSourceBeans() {
    }

    /** The DataSource bean a property names, or a failure that names the property. */
    static DataSource named(BeanFactory beanFactory, String property, String beanName) {
        if (!beanFactory.containsBean(beanName)) {
            throw new InvalidConfigurationPropertyValueException(property, beanName,
                    "there is no bean of that name; name a DataSource bean, or give a url instead");
        }
        try {
            return beanFactory.getBean(beanName, DataSource.class);
        }
        catch (org.springframework.beans.factory.BeanNotOfRequiredTypeException ex) {
            throw new InvalidConfigurationPropertyValueException(property, beanName,
                    "that bean is a " + ex.getActualType().getName() + ", not a DataSource");
        }
    }
}
