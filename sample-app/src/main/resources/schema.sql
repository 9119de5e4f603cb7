-- The shop's own table (the durable calls' tables come from the starter's script).
CREATE TABLE IF NOT EXISTS shop_order (
    id                 BIGINT PRIMARY KEY,
    item               VARCHAR(100) NOT NULL,
    status             VARCHAR(20) NOT NULL,
    created_at         TIMESTAMP WITH TIME ZONE NOT NULL,
    payment_due        TIMESTAMP WITH TIME ZONE NOT NULL,
    paid_at            TIMESTAMP WITH TIME ZONE,
    cancelled_at       TIMESTAMP WITH TIME ZONE,
    shipment           VARCHAR(20) NOT NULL,
    shipment_attempts  INTEGER NOT NULL,
    shipment_problem   VARCHAR(1000)
);

CREATE SEQUENCE IF NOT EXISTS shop_order_number START WITH 1001;
